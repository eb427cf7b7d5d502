package io.ortex.ep.cpu.ops.tensor;

import io.ortex.api.ElementType;
import io.ortex.api.Tensor;
import io.ortex.api.spi.NodeView;
import io.ortex.ep.cpu.CpuKernel;

/** NonZero: the coordinates of the non-zero elements of a tensor of any type. */
final class NonZeroKernel {
    private NonZeroKernel() {
    }

    /**
     * NonZero: the int64 coordinates, one column per non-zero element in row-major order ({@code [rank, count]}).
     *
     * @param node the node
     * @return the kernel
     */
    static CpuKernel create(NodeView node) {
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
}
