package io.ortex.ep.cpu.ops.tensor;

import io.ortex.api.ElementType;
import io.ortex.api.HalfFloats;
import io.ortex.api.InvalidArgumentException;
import io.ortex.api.InvalidModelException;
import io.ortex.api.NotImplementedException;
import io.ortex.api.Tensor;
import io.ortex.api.spi.NodeView;
import io.ortex.ep.cpu.CpuKernel;
import io.ortex.ep.cpu.ops.support.ElementArrays;
import io.ortex.ep.cpu.ops.support.Shapes;
import java.util.Set;

/**
 * Indexed writes into a copy of the data: ScatterElements (and the older Scatter) and ScatterND, with reduction
 * none, add, mul (opset 16+), max and min (opset 18+). Plain writes move elements of any type; reductions
 * compute float, double, int32 and int64 directly and the narrow types through float or long.
 */
final class ScatterKernels {
    /** How an update combines with the element it lands on, and the opset that introduced it. */
    enum Reduction {
        /** The update replaces the element. */
        NONE(1),
        /** Sum. */
        ADD(16),
        /** Product. */
        MUL(16),
        /** Maximum. */
        MAX(18),
        /** Minimum. */
        MIN(18);

        final int since;

        Reduction(int since) {
            this.since = since;
        }
    }

    private ScatterKernels() {
    }

    private static Reduction reduction(NodeView node, Set<Reduction> defined) {
        String r = node.stringAttr("reduction", "none");
        Reduction red;
        switch (r) {
            case "none": red = Reduction.NONE; break;
            case "add": red = Reduction.ADD; break;
            case "mul": red = Reduction.MUL; break;
            case "max": red = Reduction.MAX; break;
            case "min": red = Reduction.MIN; break;
            default: throw new NotImplementedException("attribute 'reduction' value '" + r + "' is not supported");
        }
        if (!defined.contains(red)) {
            throw new InvalidModelException("attribute 'reduction' value '" + r + "' needs opset " + red.since);
        }
        return red;
    }

    /**
     * ScatterElements (and Scatter): {@code out[... index ...] = updates[...]} along {@code axis}.
     *
     * @param node the node
     * @param reductions the values of the attribute {@code reduction} that the node's opset defines
     * @return the kernel
     */
    static CpuKernel scatterElements(NodeView node, Set<Reduction> reductions) {
        long axisAttr = node.intAttr("axis", 0);
        Reduction red = reduction(node, reductions);
        return (in, ctx) -> {
            Tensor data = in[0];
            Tensor idx = in[1];
            Tensor upd = in[2];
            long[] s = data.shape();
            int axis = Shapes.axis(axisAttr, s.length, "axis");
            if (idx.rank() != s.length || !java.util.Arrays.equals(idx.shape(), upd.shape())) {
                throw new InvalidArgumentException("indices " + Tensor.shapeString(idx.shape()) + " and updates "
                        + Tensor.shapeString(upd.shape()) + " must have the same shape and the data's rank");
            }
            checkType(data, upd);
            int[] map = GatherKernels.elementMap(s, idx.shape(), axis, Shapes.indices(idx, s[axis],
                    "indices"));
            Object out = ElementArrays.copyOf(data.data());
            apply(data.type(), out, map, upd.data(), red);
            return new Tensor[] {Tensor.of(data.type(), s, out)};
        };
    }

    /**
     * ScatterND: the index tuples in the last dimension of {@code indices} address slices of the data that the
     * matching slices of {@code updates} replace or reduce into.
     *
     * @param node the node
     * @param reductions the values of the attribute {@code reduction} that the node's opset defines
     * @return the kernel
     */
    static CpuKernel scatterND(NodeView node, Set<Reduction> reductions) {
        Reduction red = reduction(node, reductions);
        return (in, ctx) -> {
            Tensor data = in[0];
            Tensor upd = in[2];
            long[] s = data.shape();
            long[] is = in[1].shape();
            long[] idx = Shapes.longs(in[1], "indices");
            checkType(data, upd);
            int q = is.length;
            int k = q == 0 ? 0 : (int) is[q - 1];
            if (q < 1 || k > s.length) {
                throw new InvalidArgumentException("indices shape " + Tensor.shapeString(is)
                        + " does not fit data of rank " + s.length);
            }
            int tuples = Shapes.product(is, 0, q - 1);
            int slice = Shapes.product(s, k, s.length);
            if (upd.size() != tuples * slice) {
                throw new InvalidArgumentException("updates shape " + Tensor.shapeString(upd.shape())
                        + " does not match indices " + Tensor.shapeString(is) + " and data "
                        + Tensor.shapeString(s));
            }
            int[] st = Shapes.strides(s);
            Object out = ElementArrays.copyOf(data.data());
            int[] map = new int[tuples * slice];
            for (int t = 0; t < tuples; t++) {
                long off = 0;
                for (int d = 0; d < k; d++) {
                    long v = idx[t * k + d];
                    long dim = s[d];
                    long i = v < 0 ? v + dim : v;
                    if (i < 0 || i >= dim) {
                        throw new InvalidArgumentException("indices value " + v + " is out of range for a dimension "
                                + "of " + dim);
                    }
                    off += i * st[d];
                }
                if (red == Reduction.NONE) {
                    System.arraycopy(upd.data(), t * slice, out, (int) off, slice);
                } else {
                    for (int j = 0; j < slice; j++) {
                        map[t * slice + j] = (int) off + j;
                    }
                }
            }
            if (red != Reduction.NONE) {
                apply(data.type(), out, map, upd.data(), red);
            }
            return new Tensor[] {Tensor.of(data.type(), s, out)};
        };
    }

    private static void checkType(Tensor data, Tensor upd) {
        if (data.type() != upd.type()) {
            throw new InvalidArgumentException("updates are " + upd.type() + ", data is " + data.type());
        }
    }

    /** Applies {@code dst[at[i]] = dst[at[i]] (red) upd[i]} for every update, in order. */
    static void apply(ElementType type, Object dst, int[] at, Object upd, Reduction red) {
        int n = at.length;
        if (red == Reduction.NONE && dst instanceof float[]) {
            float[] d = (float[]) dst;
            float[] u = (float[]) upd;
            for (int i = 0; i < n; i++) {
                d[at[i]] = u[i];
            }
        } else if (red == Reduction.NONE) {
            for (int i = 0; i < n; i++) {
                System.arraycopy(upd, i, dst, at[i], 1);
            }
        } else if (dst instanceof float[]) {
            float[] d = (float[]) dst;
            float[] u = (float[]) upd;
            for (int i = 0; i < n; i++) {
                d[at[i]] = combine(d[at[i]], u[i], red);
            }
        } else if (dst instanceof double[]) {
            double[] d = (double[]) dst;
            double[] u = (double[]) upd;
            for (int i = 0; i < n; i++) {
                double a = d[at[i]];
                double b = u[i];
                d[at[i]] = red == Reduction.ADD ? a + b : red == Reduction.MUL ? a * b
                        : red == Reduction.MAX ? Math.max(a, b) : Math.min(a, b);
            }
        } else if (dst instanceof long[]) {
            long[] d = (long[]) dst;
            long[] u = (long[]) upd;
            boolean unsigned = type == ElementType.UINT64;
            for (int i = 0; i < n; i++) {
                d[at[i]] = combine(d[at[i]], u[i], red, unsigned);
            }
        } else if (dst instanceof int[]) {
            int[] d = (int[]) dst;
            int[] u = (int[]) upd;
            boolean unsigned = type == ElementType.UINT32;
            for (int i = 0; i < n; i++) {
                long a = unsigned ? Integer.toUnsignedLong(d[at[i]]) : d[at[i]];
                long b = unsigned ? Integer.toUnsignedLong(u[i]) : u[i];
                d[at[i]] = (int) combine(a, b, red, false);
            }
        } else if (type == ElementType.FLOAT16 || type == ElementType.BFLOAT16) {
            short[] d = (short[]) dst;
            short[] u = (short[]) upd;
            boolean half = type == ElementType.FLOAT16;
            for (int i = 0; i < n; i++) {
                float a = half ? HalfFloats.float16ToFloat(d[at[i]]) : HalfFloats.bfloat16ToFloat(d[at[i]]);
                float b = half ? HalfFloats.float16ToFloat(u[i]) : HalfFloats.bfloat16ToFloat(u[i]);
                float r = combine(a, b, red);
                d[at[i]] = half ? HalfFloats.floatToFloat16(r) : HalfFloats.floatToBfloat16(r);
            }
        } else if (dst instanceof short[]) {
            short[] d = (short[]) dst;
            short[] u = (short[]) upd;
            boolean unsigned = type == ElementType.UINT16;
            for (int i = 0; i < n; i++) {
                long a = unsigned ? Short.toUnsignedInt(d[at[i]]) : d[at[i]];
                long b = unsigned ? Short.toUnsignedInt(u[i]) : u[i];
                d[at[i]] = (short) combine(a, b, red, false);
            }
        } else if (dst instanceof byte[]) {
            byte[] d = (byte[]) dst;
            byte[] u = (byte[]) upd;
            boolean unsigned = type == ElementType.UINT8;
            for (int i = 0; i < n; i++) {
                long a = unsigned ? Byte.toUnsignedInt(d[at[i]]) : d[at[i]];
                long b = unsigned ? Byte.toUnsignedInt(u[i]) : u[i];
                d[at[i]] = (byte) combine(a, b, red, false);
            }
        } else if (dst instanceof boolean[]) {
            boolean[] d = (boolean[]) dst;
            boolean[] u = (boolean[]) upd;
            for (int i = 0; i < n; i++) {
                boolean or = red == Reduction.ADD || red == Reduction.MAX;
                d[at[i]] = or ? d[at[i]] | u[i] : d[at[i]] & u[i];
            }
        } else {
            throw new NotImplementedException("reduction " + red.name().toLowerCase(java.util.Locale.ROOT)
                    + " is not supported for " + type);
        }
    }

    private static float combine(float a, float b, Reduction red) {
        switch (red) {
            case ADD: return a + b;
            case MUL: return a * b;
            case MAX: return Math.max(a, b);
            default: return Math.min(a, b);
        }
    }

    private static long combine(long a, long b, Reduction red, boolean unsigned) {
        switch (red) {
            case ADD: return a + b;
            case MUL: return a * b;
            case MAX: return (unsigned ? Long.compareUnsigned(a, b) : Long.compare(a, b)) >= 0 ? a : b;
            default: return (unsigned ? Long.compareUnsigned(a, b) : Long.compare(a, b)) <= 0 ? a : b;
        }
    }
}
