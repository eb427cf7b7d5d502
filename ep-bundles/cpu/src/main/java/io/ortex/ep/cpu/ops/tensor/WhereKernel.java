package io.ortex.ep.cpu.ops.tensor;

import io.ortex.api.ElementType;
import io.ortex.api.InvalidArgumentException;
import io.ortex.api.Tensor;
import io.ortex.ep.cpu.ops.support.Broadcast;

/**
 * Where: picks each element from X or Y as the condition says, with three-way broadcasting; any element type.
 */
final class WhereKernel {
    private WhereKernel() {
    }

    /**
     * Computes Where: {@code cond ? x : y} with broadcasting of all three inputs.
     *
     * @param cond the bool condition
     * @param x the values where true
     * @param y the values where false, of x's type
     * @return the selection
     */
    static Tensor where(Tensor cond, Tensor x, Tensor y) {
        if (cond.type() != ElementType.BOOL) {
            throw new InvalidArgumentException("Where input 'condition' must be bool, got " + cond.type());
        }
        if (x.type() != y.type()) {
            throw new InvalidArgumentException("Where inputs 'X' and 'Y' have different types " + x.type()
                    + " and " + y.type());
        }
        long[] shape = Broadcast.shape(cond.shape(), x.shape(), y.shape());
        boolean[] c = cond.booleans();
        int[] ic = Broadcast.indexMap(cond.shape(), shape);
        int[] ix = Broadcast.indexMap(x.shape(), shape);
        int[] iy = Broadcast.indexMap(y.shape(), shape);
        int n = ic.length;
        Object a = x.data();
        Object b = y.data();
        Object out;
        if (a instanceof float[]) {
            float[] p = (float[]) a;
            float[] q = (float[]) b;
            float[] o = new float[n];
            for (int i = 0; i < n; i++) {
                o[i] = c[ic[i]] ? p[ix[i]] : q[iy[i]];
            }
            out = o;
        } else if (a instanceof double[]) {
            double[] p = (double[]) a;
            double[] q = (double[]) b;
            double[] o = new double[n];
            for (int i = 0; i < n; i++) {
                o[i] = c[ic[i]] ? p[ix[i]] : q[iy[i]];
            }
            out = o;
        } else if (a instanceof long[]) {
            long[] p = (long[]) a;
            long[] q = (long[]) b;
            long[] o = new long[n];
            for (int i = 0; i < n; i++) {
                o[i] = c[ic[i]] ? p[ix[i]] : q[iy[i]];
            }
            out = o;
        } else if (a instanceof int[]) {
            int[] p = (int[]) a;
            int[] q = (int[]) b;
            int[] o = new int[n];
            for (int i = 0; i < n; i++) {
                o[i] = c[ic[i]] ? p[ix[i]] : q[iy[i]];
            }
            out = o;
        } else if (a instanceof short[]) {
            short[] p = (short[]) a;
            short[] q = (short[]) b;
            short[] o = new short[n];
            for (int i = 0; i < n; i++) {
                o[i] = c[ic[i]] ? p[ix[i]] : q[iy[i]];
            }
            out = o;
        } else if (a instanceof byte[]) {
            byte[] p = (byte[]) a;
            byte[] q = (byte[]) b;
            byte[] o = new byte[n];
            for (int i = 0; i < n; i++) {
                o[i] = c[ic[i]] ? p[ix[i]] : q[iy[i]];
            }
            out = o;
        } else if (a instanceof boolean[]) {
            boolean[] p = (boolean[]) a;
            boolean[] q = (boolean[]) b;
            boolean[] o = new boolean[n];
            for (int i = 0; i < n; i++) {
                o[i] = c[ic[i]] ? p[ix[i]] : q[iy[i]];
            }
            out = o;
        } else {
            String[] p = (String[]) a;
            String[] q = (String[]) b;
            String[] o = new String[n];
            for (int i = 0; i < n; i++) {
                o[i] = c[ic[i]] ? p[ix[i]] : q[iy[i]];
            }
            out = o;
        }
        return Tensor.of(x.type(), shape, out);
    }
}
