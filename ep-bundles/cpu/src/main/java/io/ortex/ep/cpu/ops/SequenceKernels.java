package io.ortex.ep.cpu.ops;

import io.ortex.api.ElementType;
import io.ortex.api.InvalidArgumentException;
import io.ortex.api.NotImplementedException;
import io.ortex.api.Tensor;
import io.ortex.api.spi.NodeView;
import io.ortex.ep.cpu.CpuKernel;

/** Ops that walk along an axis or over positions: CumSum, NonZero and ReverseSequence. */
final class SequenceKernels {
    private SequenceKernels() {
    }

    /**
     * CumSum: running sums along the axis given by the second input, optionally exclusive and/or reversed.
     *
     * @param node the node
     * @return the kernel
     */
    static CpuKernel cumSum(NodeView node) {
        boolean exclusive = node.intAttr("exclusive", 0) != 0;
        boolean reverse = node.intAttr("reverse", 0) != 0;
        return (in, ctx) -> {
            Tensor x = in[0];
            long[] s = x.shape();
            int axis = Shapes.axis(Shapes.scalar(in[1], "axis"), s.length, "axis");
            int outer = Shapes.product(s, 0, axis);
            int dim = (int) s[axis];
            int inner = Shapes.product(s, axis + 1, s.length);
            int n = x.size();
            ElementType type = x.type();
            switch (type) {
                case FLOAT: {
                    float[] v = x.floats();
                    float[] out = new float[n];
                    for (int o = 0; o < outer; o++) {
                        for (int step = 0; step < dim; step++) {
                            int p = reverse ? dim - 1 - step : step;
                            int cur = (o * dim + p) * inner;
                            int prev = cur + (reverse ? inner : -inner);
                            for (int j = 0; j < inner; j++) {
                                out[cur + j] = step == 0 ? (exclusive ? 0f : v[cur + j])
                                        : out[prev + j] + (exclusive ? v[prev + j] : v[cur + j]);
                            }
                        }
                    }
                    return new Tensor[] {Tensor.of(type, s, out)};
                }
                case DOUBLE: case FLOAT16: case BFLOAT16: {
                    double[] out = new double[n];
                    for (int o = 0; o < outer; o++) {
                        for (int step = 0; step < dim; step++) {
                            int p = reverse ? dim - 1 - step : step;
                            int cur = (o * dim + p) * inner;
                            int prev = cur + (reverse ? inner : -inner);
                            for (int j = 0; j < inner; j++) {
                                out[cur + j] = step == 0 ? (exclusive ? 0 : x.getDouble(cur + j))
                                        : out[prev + j] + (exclusive ? x.getDouble(prev + j) : x.getDouble(cur + j));
                            }
                        }
                    }
                    return new Tensor[] {Values.fromDoubles(type, s, out)};
                }
                case INT64: case UINT64: case INT32: case UINT32: {
                    long[] out = new long[n];
                    for (int o = 0; o < outer; o++) {
                        for (int step = 0; step < dim; step++) {
                            int p = reverse ? dim - 1 - step : step;
                            int cur = (o * dim + p) * inner;
                            int prev = cur + (reverse ? inner : -inner);
                            for (int j = 0; j < inner; j++) {
                                out[cur + j] = step == 0 ? (exclusive ? 0 : x.getLong(cur + j))
                                        : out[prev + j] + (exclusive ? x.getLong(prev + j) : x.getLong(cur + j));
                            }
                        }
                    }
                    return new Tensor[] {Values.fromLongs(type, s, out)};
                }
                default:
                    throw new NotImplementedException("CumSum is not implemented for " + type);
            }
        };
    }

    /**
     * NonZero: the int64 coordinates, one column per non-zero element in row-major order ({@code [rank, count]}).
     *
     * @param node the node
     * @return the kernel
     */
    static CpuKernel nonZero(NodeView node) {
        return (in, ctx) -> {
            Tensor x = in[0];
            boolean[] nz = nonZeroMask(x);
            long[] s = x.rank() == 0 ? new long[] {1} : x.shape();
            int rank = s.length;
            int count = 0;
            for (boolean b : nz) {
                count += b ? 1 : 0;
            }
            long[] out = new long[rank * count];
            int[] counter = new int[rank];
            int k = 0;
            for (int i = 0; i < nz.length; i++) {
                if (nz[i]) {
                    for (int a = 0; a < rank; a++) {
                        out[a * count + k] = counter[a];
                    }
                    k++;
                }
                for (int a = rank - 1; a >= 0; a--) {
                    if (++counter[a] < s[a]) {
                        break;
                    }
                    counter[a] = 0;
                }
            }
            return new Tensor[] {Tensor.ofLongs(out, rank, count)};
        };
    }

    private static boolean[] nonZeroMask(Tensor x) {
        int n = x.size();
        boolean[] m = new boolean[n];
        Object d = x.data();
        if (d instanceof float[]) {
            float[] v = (float[]) d;
            for (int i = 0; i < n; i++) {
                m[i] = v[i] != 0f;
            }
        } else if (d instanceof double[]) {
            double[] v = (double[]) d;
            for (int i = 0; i < n; i++) {
                m[i] = v[i] != 0.0;
            }
        } else if (d instanceof long[]) {
            long[] v = (long[]) d;
            for (int i = 0; i < n; i++) {
                m[i] = v[i] != 0;
            }
        } else if (d instanceof int[]) {
            int[] v = (int[]) d;
            for (int i = 0; i < n; i++) {
                m[i] = v[i] != 0;
            }
        } else if (d instanceof short[]) {
            short[] v = (short[]) d;
            // float16 and bfloat16 zeros are +0 and -0: only the sign bit may be set
            int mask = x.type() == ElementType.FLOAT16 || x.type() == ElementType.BFLOAT16 ? 0x7fff : 0xffff;
            for (int i = 0; i < n; i++) {
                m[i] = (v[i] & mask) != 0;
            }
        } else if (d instanceof byte[]) {
            byte[] v = (byte[]) d;
            for (int i = 0; i < n; i++) {
                m[i] = v[i] != 0;
            }
        } else if (d instanceof boolean[]) {
            System.arraycopy(d, 0, m, 0, n);
        } else {
            String[] v = (String[]) d;
            for (int i = 0; i < n; i++) {
                m[i] = !v[i].isEmpty();
            }
        }
        return m;
    }

    /**
     * ReverseSequence: reverses the first {@code sequence_lens[b]} steps along {@code time_axis} for each batch
     * entry {@code b} along {@code batch_axis}.
     *
     * @param node the node
     * @return the kernel
     */
    static CpuKernel reverseSequence(NodeView node) {
        long timeAttr = node.intAttr("time_axis", 0);
        long batchAttr = node.intAttr("batch_axis", 1);
        if (!((timeAttr == 0 && batchAttr == 1) || (timeAttr == 1 && batchAttr == 0))) {
            throw new InvalidArgumentException("time_axis and batch_axis must be 0 and 1 in some order, got "
                    + timeAttr + " and " + batchAttr);
        }
        boolean timeFirst = timeAttr == 0;
        return (in, ctx) -> {
            Tensor x = in[0];
            long[] s = x.shape();
            if (s.length < 2) {
                throw new InvalidArgumentException("ReverseSequence needs rank 2 or more");
            }
            long[] lens = Shapes.longs(in[1], "sequence_lens");
            int steps = (int) s[timeFirst ? 0 : 1];
            int batch = (int) s[timeFirst ? 1 : 0];
            if (lens.length != batch) {
                throw new InvalidArgumentException("sequence_lens has " + lens.length + " entries for a batch of "
                        + batch);
            }
            int inner = Shapes.product(s, 2, s.length);
            int[] rowBase = new int[steps * batch];
            for (int a = 0; a < s[0]; a++) {
                for (int b = 0; b < s[1]; b++) {
                    int t = timeFirst ? a : b;
                    int bi = timeFirst ? b : a;
                    long len = lens[bi];
                    if (len < 0 || len > steps) {
                        throw new InvalidArgumentException("sequence_lens entry " + len + " is out of range 0.."
                                + steps);
                    }
                    int srcT = t < len ? (int) (len - 1 - t) : t;
                    int srcA = timeFirst ? srcT : a;
                    int srcB = timeFirst ? b : srcT;
                    rowBase[a * (int) s[1] + b] = (srcA * (int) s[1] + srcB) * inner;
                }
            }
            Object dst = ElementArrays.allocate(x.type(), x.size());
            if (inner > 0) {
                ElementArrays.copyRows(x.data(), rowBase, 1, inner, dst, 0, rowBase.length);
            }
            return new Tensor[] {Tensor.of(x.type(), s, dst)};
        };
    }
}
