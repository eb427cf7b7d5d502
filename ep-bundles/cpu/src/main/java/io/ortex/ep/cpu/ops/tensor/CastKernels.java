package io.ortex.ep.cpu.ops.tensor;

import io.ortex.api.ElementType;
import io.ortex.api.InvalidModelException;
import io.ortex.api.NarrowFloats;
import io.ortex.api.NotImplementedException;
import io.ortex.api.Tensor;
import io.ortex.api.spi.NodeView;
import io.ortex.ep.cpu.CpuKernel;
import io.ortex.ep.cpu.ops.support.NarrowValues;
import io.ortex.ep.cpu.ops.support.Values;

/**
 * Cast and CastLike between every pair of supported element types, strings and the narrow types included.
 * Floating point to integer truncates towards zero and narrows by wrapping (to 4 and 2 bits as well); numbers to
 * bool test for non-zero. Narrow floats are decoded exactly and encoded rounding to nearest even; the
 * {@code saturate} attribute (opset 19, default 1) decides what float8 and float8e8m0 targets do with values out
 * of their range, and {@code round_mode} (opset 25, default {@code up}) how float8e8m0 targets round. Narrow
 * sources are widened first (floats to float32, integers to int32), which is exact.
 */
final class CastKernels {
    private static final double TWO_POW_63 = 9.223372036854775808E18;

    private CastKernels() {
    }

    /**
     * Creates the kernel for a Cast node.
     *
     * @param node the node
     * @return the kernel
     */
    static CpuKernel cast(NodeView node) {
        if (node.attribute("to").isEmpty()) {
            throw new InvalidModelException("Cast needs the attribute 'to'");
        }
        ElementType to = ElementType.fromCode((int) node.intAttr("to", 0));
        requireSupported(to, "attribute 'to'");
        boolean saturate = node.intAttr("saturate", 1) != 0;
        NarrowFloats.E8M0Rounding rounding = rounding(node);
        return (in, ctx) -> {
            Tensor x = in[0];
            if (x.type() == ElementType.INT32 && to == ElementType.FLOAT) {
                // the cast that follows every integer product: one pass, into the run's memory
                int[] v = x.ints();
                Tensor y = ctx.allocateUninitialized(ElementType.FLOAT, x.shape());
                float[] out = y.floats();
                for (int i = 0; i < v.length; i++) {
                    out[i] = v[i];
                }
                return new Tensor[] {y};
            }
            return new Tensor[] {convert(x, to, saturate, rounding)};
        };
    }

    /**
     * Creates the kernel for a CastLike node: the target type is the type of the second input.
     *
     * @param node the node
     * @return the kernel
     */
    static CpuKernel castLike(NodeView node) {
        if (node.inputs().size() > 1 && node.inputs().get(1) != null) {
            node.inputs().get(1).typeInfo().ifPresent(info -> requireSupported(info.type(),
                    "input 'target_type'"));
        }
        boolean saturate = node.intAttr("saturate", 1) != 0;
        NarrowFloats.E8M0Rounding rounding = rounding(node);
        return (in, ctx) -> new Tensor[] {convert(in[0], in[1].type(), saturate, rounding)};
    }

    private static NarrowFloats.E8M0Rounding rounding(NodeView node) {
        String mode = node.stringAttr("round_mode", "up");
        switch (mode) {
            case "up": return NarrowFloats.E8M0Rounding.UP;
            case "down": return NarrowFloats.E8M0Rounding.DOWN;
            case "nearest": return NarrowFloats.E8M0Rounding.NEAREST;
            default: throw new InvalidModelException(node.opType() + " attribute 'round_mode' must be up, down or "
                    + "nearest, got '" + mode + "'");
        }
    }

    private static void requireSupported(ElementType to, String what) {
        if (!to.isSupported()) {
            throw new NotImplementedException("cast to " + to + " (" + what + ") is not supported");
        }
    }

    /**
     * Converts a tensor to another element type, saturating float8 targets and rounding float8e8m0 targets up.
     *
     * @param x the input
     * @param to the target type
     * @return the converted tensor (the input itself when the types are equal)
     */
    static Tensor convert(Tensor x, ElementType to) {
        return convert(x, to, true, NarrowFloats.E8M0Rounding.UP);
    }

    /**
     * Converts a tensor to another element type.
     *
     * @param x the input
     * @param to the target type
     * @param saturate whether float8 and float8e8m0 targets saturate values out of their range
     * @param rounding how float8e8m0 targets round
     * @return the converted tensor (the input itself when the types are equal)
     */
    static Tensor convert(Tensor x, ElementType to, boolean saturate, NarrowFloats.E8M0Rounding rounding) {
        ElementType from = x.type();
        long[] shape = x.shape();
        if (from == to) {
            return x;
        }
        if (NarrowValues.isNarrow(from)) {
            x = NarrowValues.widen(x);
            from = x.type();
            if (from == to) {
                return x;
            }
        }
        if (NarrowValues.isNarrow(to)) {
            return toNarrow(x, to, saturate, rounding);
        }
        if (to == ElementType.STRING) {
            return Tensor.ofStrings(NumberText.format(x), shape);
        }
        if (from == ElementType.STRING) {
            return NumberText.parse(x.strings(), to, shape);
        }
        if (to == ElementType.BOOL) {
            boolean[] out = new boolean[x.size()];
            if (from.isFloatingPoint()) {
                double[] d = Values.toDoubles(x);
                for (int i = 0; i < out.length; i++) {
                    out[i] = d[i] != 0;
                }
            } else {
                long[] l = Values.toLongs(x);
                for (int i = 0; i < out.length; i++) {
                    out[i] = l[i] != 0;
                }
            }
            return Tensor.ofBooleans(out, shape);
        }
        if (to.isFloatingPoint()) {
            if (from == ElementType.FLOAT || from == ElementType.FLOAT16 || from == ElementType.BFLOAT16) {
                // to differs from from, so a float32 input's own array is only read, never kept
                return Values.fromFloats(to, shape, Values.toFloats(x));
            }
            if (from == ElementType.DOUBLE && to != ElementType.DOUBLE) {
                return Values.fromDoubles(to, shape, x.doubles());
            }
            return Values.fromDoubles(to, shape, Values.toDoubles(x));
        }
        if (!to.isInteger()) {
            throw new NotImplementedException("cast to " + to + " is not supported");
        }
        if (!from.isFloatingPoint()) {
            long[] l = Values.toLongs(x);
            return Values.fromLongs(to, shape, to == ElementType.INT64 || to == ElementType.UINT64 ? l.clone() : l);
        }
        double[] d = Values.toDoubles(x);
        long[] l = new long[d.length];
        boolean u64 = to == ElementType.UINT64;
        for (int i = 0; i < d.length; i++) {
            l[i] = u64 && d[i] >= TWO_POW_63 ? (long) (d[i] - TWO_POW_63) ^ Long.MIN_VALUE : (long) d[i];
        }
        return Values.fromLongs(to, shape, l);
    }

    private static Tensor toNarrow(Tensor x, ElementType to, boolean saturate, NarrowFloats.E8M0Rounding rounding) {
        long[] shape = x.shape();
        if (x.type() == ElementType.STRING) {
            x = NumberText.parse(x.strings(), to.isNarrowFloat() ? ElementType.DOUBLE : ElementType.INT64, shape);
        }
        if (to.isNarrowFloat()) {
            return x.type() == ElementType.FLOAT ? NarrowValues.encodeFloats(to, shape, x.floats(), saturate, rounding)
                    : NarrowValues.encodeDoubles(to, shape, Values.toDoubles(x), saturate, rounding);
        }
        if (!x.type().isFloatingPoint()) {
            return NarrowValues.wrapLongs(to, shape, Values.toLongs(x));
        }
        double[] d = Values.toDoubles(x);
        long[] l = new long[d.length];
        for (int i = 0; i < d.length; i++) {
            l[i] = (long) d[i];
        }
        return NarrowValues.wrapLongs(to, shape, l);
    }
}
