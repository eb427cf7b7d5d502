package io.ortex.ep.cpu.ops;

import io.ortex.api.ElementType;
import io.ortex.api.InvalidArgumentException;
import io.ortex.api.NotImplementedException;
import io.ortex.api.Tensor;
import io.ortex.api.spi.NodeView;
import io.ortex.ep.cpu.CpuKernel;
import java.util.Arrays;

/**
 * Ops that pick or pass elements rather than compute them: Where (three-way broadcast, any element type),
 * Identity and Dropout at inference.
 */
final class SelectKernels {
    private SelectKernels() {
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

    /**
     * Creates the kernel for a Dropout node at inference: the output is the input and the optional mask is all
     * true (all ones of the input's type before opset 10). From opset 12, {@code training_mode} = true is only
     * accepted with a ratio of 0, since random dropping is not implemented.
     *
     * @param node the node
     * @return the kernel
     */
    static CpuKernel dropout(NodeView node) {
        int opset = node.opsetVersion();
        boolean wantMask = node.outputs().size() > 1 && node.outputs().get(1) != null;
        float attrRatio = node.floatAttr("ratio", 0.5f);
        return (in, ctx) -> {
            Tensor x = in[0];
            if (opset >= 12 && in.length > 2 && in[2] != null && in[2].booleans().length > 0
                    && in[2].booleans()[0]) {
                double ratio = in.length > 1 && in[1] != null ? in[1].getDouble(0) : 0.5;
                if (ratio != 0) {
                    throw new NotImplementedException("Dropout with input 'training_mode' = true and ratio "
                            + ratio + " (random dropping) is not implemented");
                }
            } else if (opset < 12 && attrRatio < 0) {
                throw new InvalidArgumentException("Dropout attribute 'ratio' must be in [0, 1), got " + attrRatio);
            }
            if (!wantMask) {
                return new Tensor[] {x};
            }
            Tensor mask;
            if (opset >= 10) {
                boolean[] m = new boolean[x.size()];
                Arrays.fill(m, true);
                mask = Tensor.ofBooleans(m, x.shape());
            } else {
                double[] ones = new double[x.size()];
                Arrays.fill(ones, 1);
                mask = Values.fromDoubles(x.type(), x.shape(), ones);
            }
            return new Tensor[] {x, mask};
        };
    }
}
