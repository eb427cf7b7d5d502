package io.ortex.ep.cpu.ops.nn;

import io.ortex.api.InvalidArgumentException;
import io.ortex.api.InvalidModelException;
import io.ortex.api.NotImplementedException;
import io.ortex.api.spi.NodeView;
import java.util.Arrays;

/**
 * The geometry of a transposed convolution, lifted to three spatial axes: where each input position's kernel taps
 * land in the output, after strides, dilations, pads, output_padding, output_shape and auto_pad. Immutable.
 */
public final class TransposeWindow {
    final int[] in = {1, 1, 1};
    final int[] k = {1, 1, 1};
    final int[] s = {1, 1, 1};
    final int[] d = {1, 1, 1};
    final int[] pb = new int[3];
    final int[] out = {1, 1, 1};
    final long[] outShape;

    private TransposeWindow(int rank) {
        outShape = new long[rank];
    }

    /**
     * The attributes of a ConvTranspose node. Immutable.
     *
     * @param autoPad {@code auto_pad}
     * @param strides {@code strides}, or {@code null}
     * @param dilations {@code dilations}, or {@code null}
     * @param pads {@code pads}, or {@code null}
     * @param outputPadding {@code output_padding}, or {@code null}
     * @param outputShape {@code output_shape}, or {@code null}
     * @param kernel {@code kernel_shape}, or {@code null}
     * @param group {@code group}
     */
    public record Attrs(String autoPad, long[] strides, long[] dilations, long[] pads, long[] outputPadding,
            long[] outputShape, long[] kernel, int group) {
        /**
         * Reads the attributes of a node.
         *
         * @param node the node
         * @return the attributes
         * @throws InvalidModelException when auto_pad is unknown
         * @throws InvalidArgumentException when group is not positive
         */
        public static Attrs of(NodeView node) {
            Attrs a = new Attrs(node.stringAttr("auto_pad", "NOTSET"), node.intsAttr("strides", null),
                    node.intsAttr("dilations", null), node.intsAttr("pads", null),
                    node.intsAttr("output_padding", null), node.intsAttr("output_shape", null),
                    node.intsAttr("kernel_shape", null), (int) node.intAttr("group", 1));
            if (!Arrays.asList("NOTSET", "SAME_UPPER", "SAME_LOWER", "VALID").contains(a.autoPad())) {
                throw new InvalidModelException("ConvTranspose attribute auto_pad has an unknown value '"
                        + a.autoPad() + "'");
            }
            if (a.group() < 1) {
                throw new InvalidArgumentException("ConvTranspose attribute group must be positive, got "
                        + a.group());
            }
            return a;
        }
    }

    /**
     * Resolves the geometry for an input of the given spatial shape.
     *
     * @param a the attributes
     * @param spatial the input's spatial dimensions
     * @param kernel the kernel's spatial dimensions
     * @return the geometry
     */
    static TransposeWindow resolve(Attrs a, long[] spatial, long[] kernel) {
        int r = spatial.length;
        if (r < 1 || r > 3) {
            throw new NotImplementedException("ConvTranspose supports 1 to 3 spatial dimensions, got " + r);
        }
        if (a.kernel() != null && !Arrays.equals(a.kernel(), kernel)) {
            throw new InvalidArgumentException("ConvTranspose attribute kernel_shape " + Arrays.toString(a.kernel())
                    + " differs from the weights' spatial shape " + Arrays.toString(kernel));
        }
        check("strides", a.strides(), r);
        check("dilations", a.dilations(), r);
        check("output_padding", a.outputPadding(), r);
        check("pads", a.pads(), 2 * r);
        if (a.outputShape() != null && a.outputShape().length < r) {
            throw new InvalidArgumentException("ConvTranspose attribute output_shape has " + a.outputShape().length
                    + " values, expected at least " + r);
        }
        TransposeWindow g = new TransposeWindow(r);
        int lift = 3 - r;
        for (int i = 0; i < r; i++) {
            int ax = lift + i;
            g.in[ax] = (int) spatial[i];
            g.k[ax] = (int) kernel[i];
            g.s[ax] = a.strides() == null ? 1 : (int) a.strides()[i];
            g.d[ax] = a.dilations() == null ? 1 : (int) a.dilations()[i];
            if (g.k[ax] < 1 || g.s[ax] < 1 || g.d[ax] < 1) {
                throw new InvalidArgumentException("ConvTranspose kernel, strides and dilations must be positive");
            }
            int adj = a.outputPadding() == null ? 0 : (int) a.outputPadding()[i];
            int full = g.s[ax] * (g.in[ax] - 1) + adj + (g.k[ax] - 1) * g.d[ax] + 1;
            int o;
            if (a.outputShape() != null) {
                o = (int) a.outputShape()[a.outputShape().length - r + i];
                int total = full - o;
                g.pb[ax] = a.autoPad().equals("SAME_UPPER") ? total / 2 : total - total / 2;
            } else if (a.autoPad().startsWith("SAME")) {
                o = g.in[ax] * g.s[ax];
                int total = full - o;
                g.pb[ax] = a.autoPad().equals("SAME_UPPER") ? total / 2 : total - total / 2;
            } else if (a.autoPad().equals("VALID") || a.pads() == null) {
                o = full;
            } else {
                g.pb[ax] = (int) a.pads()[i];
                o = full - g.pb[ax] - (int) a.pads()[i + r];
            }
            if (o < 0) {
                throw new InvalidArgumentException("ConvTranspose output size along spatial axis " + i
                        + " is negative");
            }
            g.out[ax] = o;
            g.outShape[i] = o;
        }
        return g;
    }

    private static void check(String name, long[] v, int len) {
        if (v != null && v.length != len) {
            throw new InvalidArgumentException("ConvTranspose attribute " + name + " has " + v.length
                    + " values, expected " + len);
        }
    }

    int inSize() {
        return in[0] * in[1] * in[2];
    }

    int outSize() {
        return out[0] * out[1] * out[2];
    }

    int kernelSize() {
        return k[0] * k[1] * k[2];
    }

    /** Whether no two input positions' taps land on the same output position: each stride spans its kernel. */
    boolean disjoint() {
        for (int i = 0; i < 3; i++) {
            if (s[i] < (k[i] - 1) * d[i] + 1) {
                return false;
            }
        }
        return true;
    }

    /** Whether every output position is reached by exactly one tap (disjoint, and nothing left between or around). */
    boolean exactCover() {
        for (int i = 0; i < 3; i++) {
            if (s[i] != k[i] || d[i] != 1 && k[i] > 1 || pb[i] != 0 || out[i] != in[i] * s[i]) {
                return false;
            }
        }
        return true;
    }
}
