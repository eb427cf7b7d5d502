package io.ortex.ep.cpu.ops.tensor;

import io.ortex.api.ElementType;
import io.ortex.api.InvalidArgumentException;
import io.ortex.api.InvalidModelException;
import io.ortex.api.NotImplementedException;
import io.ortex.api.Tensor;
import io.ortex.api.spi.NodeView;
import io.ortex.ep.cpu.CpuKernel;
import io.ortex.ep.cpu.ops.support.Values;
import io.ortex.ep.cpu.ops.support.WorkingArrays;
import java.util.Set;

/**
 * Resize (opsets 10 to 19+) and Upsample (opsets 7 to 9): nearest, linear and cubic interpolation over any axes,
 * separable, one axis at a time from the last to the first with a {@link ResizeAxis} each, computed in double.
 * Covers every coordinate transformation mode, the nearest rounding modes, cubic_coeff_a, exclude_outside,
 * extrapolation_value, antialias, axes and keep_aspect_ratio_policy.
 */
final class ResizeKernels {
    private static final Set<String> MODES = Set.of("nearest", "linear", "cubic");
    private static final Set<String> COORDINATE_MODES = Set.of("half_pixel", "half_pixel_symmetric",
            "pytorch_half_pixel", "align_corners", "asymmetric", "tf_half_pixel_for_nn", "tf_crop_and_resize");
    private static final Set<String> NEAREST_MODES = Set.of("round_prefer_floor", "round_prefer_ceil", "floor",
            "ceil");

    private ResizeKernels() {
    }

    /**
     * Creates a Resize kernel for opset 10: nearest or linear, asymmetric coordinates, scales from the second
     * input.
     *
     * @param node the node
     * @return the kernel
     */
    static CpuKernel resize10(NodeView node) {
        String mode = mode(node);
        if (mode.equals("cubic")) {
            throw new InvalidModelException("Resize-10 attribute mode does not allow 'cubic'");
        }
        ResizeAxis.Settings s = new ResizeAxis.Settings(mode, "asymmetric", "simple", -0.75, false, false, 0);
        return (in, ctx) -> new Tensor[] {run(in[0], null, in[1], null, s, null, "stretch")};
    }

    private static String mode(NodeView node) {
        String mode = node.stringAttr("mode", "nearest");
        if (!MODES.contains(mode)) {
            throw new InvalidModelException("Resize attribute mode has an unknown value '" + mode + "'");
        }
        return mode;
    }

    /**
     * Creates a Resize kernel from opset 11: inputs roi, scales and sizes, and every attribute of the latest
     * opset (those an older opset lacks keep their defaults).
     *
     * @param node the node
     * @return the kernel
     */
    static CpuKernel resize(NodeView node) {
        String mode = mode(node);
        String coordinate = node.stringAttr("coordinate_transformation_mode", "half_pixel");
        if (!COORDINATE_MODES.contains(coordinate)) {
            throw new InvalidModelException("Resize attribute coordinate_transformation_mode has an unknown value '"
                    + coordinate + "'");
        }
        String nearest = node.stringAttr("nearest_mode", "round_prefer_floor");
        if (!NEAREST_MODES.contains(nearest)) {
            throw new InvalidModelException("Resize attribute nearest_mode has an unknown value '" + nearest + "'");
        }
        boolean antialias = node.intAttr("antialias", 0) != 0;
        String policy = node.stringAttr("keep_aspect_ratio_policy", "stretch");
        if (!Set.of("stretch", "not_larger", "not_smaller").contains(policy)) {
            throw new InvalidModelException("Resize attribute keep_aspect_ratio_policy has an unknown value '"
                    + policy + "'");
        }
        long[] axes = node.intsAttr("axes", null);
        ResizeAxis.Settings s = new ResizeAxis.Settings(mode, coordinate, nearest,
                node.floatAttr("cubic_coeff_a", -0.75f), node.intAttr("exclude_outside", 0) != 0, antialias,
                node.floatAttr("extrapolation_value", 0f));
        return (in, ctx) -> new Tensor[] {run(in[0], in.length > 1 ? in[1] : null, in.length > 2 ? in[2] : null,
                in.length > 3 ? in[3] : null, s, axes, policy)};
    }

    /**
     * Creates an Upsample kernel.
     *
     * @param node the node
     * @param scalesFromInput whether the scales are the second input (opset 9 on) rather than the attribute
     * @return the kernel
     */
    static CpuKernel upsample(NodeView node, boolean scalesFromInput) {
        String mode = node.stringAttr("mode", "nearest");
        if (mode.equals("bilinear")) {
            mode = "linear";
        }
        if (!mode.equals("nearest") && !mode.equals("linear")) {
            throw new InvalidModelException("Upsample attribute mode has an unknown value '" + mode + "'");
        }
        ResizeAxis.Settings s = new ResizeAxis.Settings(mode, "asymmetric", "simple", -0.75, false, false, 0);
        if (!scalesFromInput) {
            float[] scales = node.floatsAttr("scales", null);
            if (scales == null) {
                throw new InvalidModelException("Upsample requires the attribute scales");
            }
            Tensor st = Tensor.ofFloats(scales, scales.length);
            return (in, ctx) -> new Tensor[] {run(in[0], null, st, null, s, null, "stretch")};
        }
        return (in, ctx) -> new Tensor[] {run(in[0], null, in[1], null, s, null, "stretch")};
    }

    private static Tensor run(Tensor x, Tensor roi, Tensor scales, Tensor sizes, ResizeAxis.Settings s, long[] axesAttr,
            String policy) {
        ElementType type = x.type();
        if (type == ElementType.STRING || type == ElementType.BOOL) {
            throw new NotImplementedException("Resize is not implemented for type " + type);
        }
        int r = x.rank();
        int[] axes = axes(axesAttr, r);
        long[] inShape = x.shape();
        double[] scale = new double[r];
        long[] outShape = inShape.clone();
        java.util.Arrays.fill(scale, 1.0);
        if (sizes != null && sizes.size() > 0) {
            if (sizes.size() != axes.length) {
                throw new InvalidArgumentException("Resize input sizes has " + sizes.size() + " values, expected "
                        + axes.length);
            }
            if (policy.equals("stretch")) {
                for (int i = 0; i < axes.length; i++) {
                    outShape[axes[i]] = sizes.getLong(i);
                    scale[axes[i]] = (double) sizes.getLong(i) / inShape[axes[i]];
                }
            } else {
                double sc = policy.equals("not_larger") ? Double.POSITIVE_INFINITY : 0;
                for (int i = 0; i < axes.length; i++) {
                    double v = (double) sizes.getLong(i) / inShape[axes[i]];
                    sc = policy.equals("not_larger") ? Math.min(sc, v) : Math.max(sc, v);
                }
                for (int ax : axes) {
                    outShape[ax] = (long) Math.floor(sc * inShape[ax] + 0.5);
                    scale[ax] = sc;
                }
            }
        } else if (scales != null && scales.size() > 0) {
            if (scales.size() != axes.length) {
                throw new InvalidArgumentException("Resize input scales has " + scales.size() + " values, expected "
                        + axes.length);
            }
            for (int i = 0; i < axes.length; i++) {
                double sc = (float) scales.getDouble(i);
                if (!(sc > 0)) {
                    throw new InvalidArgumentException("Resize scales must be positive, got " + sc);
                }
                scale[axes[i]] = sc;
                outShape[axes[i]] = (long) (sc * inShape[axes[i]]);
            }
        } else {
            throw new InvalidArgumentException("Resize needs either scales or sizes");
        }
        double[] roiStart = new double[r];
        double[] roiEnd = new double[r];
        java.util.Arrays.fill(roiEnd, 1.0);
        if (s.coordinateMode().equals("tf_crop_and_resize")) {
            if (roi == null || roi.size() != 2 * axes.length) {
                throw new InvalidArgumentException("Resize with tf_crop_and_resize needs roi with " + 2 * axes.length
                        + " values");
            }
            for (int i = 0; i < axes.length; i++) {
                roiStart[axes[i]] = roi.getDouble(i);
                roiEnd[axes[i]] = roi.getDouble(i + axes.length);
            }
        }
        double[] data = WorkingArrays.doubles(x);
        long[] cur = inShape.clone();
        for (int ax = r - 1; ax >= 0; ax--) {
            int inLen = (int) inShape[ax];
            int outLen = (int) outShape[ax];
            if (inLen == outLen && scale[ax] == 1.0 && roiStart[ax] == 0 && roiEnd[ax] == 1) {
                continue;
            }
            if (inLen == 0 && outLen > 0) {
                throw new InvalidArgumentException("Resize cannot enlarge an empty axis " + ax);
            }
            ResizeAxis sampling = ResizeAxis.build(s, inLen, outLen, scale[ax], roiStart[ax], roiEnd[ax]);
            int outer = WorkingArrays.product(cur, 0, ax);
            int inner = WorkingArrays.product(cur, ax + 1, r);
            data = sampling.apply(data, outer, inner, s.extrapolation());
            cur[ax] = outLen;
        }
        if (WorkingArrays.viaFloat(type)) {
            float[] f = new float[data.length];
            for (int i = 0; i < f.length; i++) {
                f[i] = (float) data[i];
            }
            return WorkingArrays.fromFloats(type, outShape, f);
        }
        if (type.isInteger()) {
            for (int i = 0; i < data.length; i++) {
                data[i] = Math.rint(data[i]);
            }
        }
        return Values.fromDoubles(type, outShape, data);
    }

    private static int[] axes(long[] attr, int r) {
        if (attr == null) {
            int[] all = new int[r];
            for (int i = 0; i < r; i++) {
                all[i] = i;
            }
            return all;
        }
        int[] axes = new int[attr.length];
        boolean[] seen = new boolean[r];
        for (int i = 0; i < attr.length; i++) {
            long a = attr[i] < 0 ? attr[i] + r : attr[i];
            if (a < 0 || a >= r || seen[(int) a]) {
                throw new InvalidArgumentException("Resize attribute axes " + java.util.Arrays.toString(attr)
                        + " is invalid for rank " + r);
            }
            seen[(int) a] = true;
            axes[i] = (int) a;
        }
        return axes;
    }
}
