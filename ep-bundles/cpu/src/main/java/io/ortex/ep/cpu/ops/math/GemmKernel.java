package io.ortex.ep.cpu.ops.math;

import io.ortex.api.ElementType;
import io.ortex.api.InvalidArgumentException;
import io.ortex.api.NotImplementedException;
import io.ortex.api.Tensor;
import io.ortex.api.spi.KernelContext;
import io.ortex.api.spi.NodeView;
import io.ortex.api.spi.ValueView;
import io.ortex.ep.cpu.CpuKernel;
import io.ortex.ep.cpu.ops.support.Broadcast;
import io.ortex.ep.cpu.ops.support.Values;
import io.ortex.ep.cpu.ops.support.WorkingArrays;

/**
 * Gemm: {@code Y = alpha * A' x B' + beta * C} with optional transposes and C broadcast to the result (optional
 * from opset 11). Float32 (and float16/bfloat16 through float32) runs on {@link Sgemm} with B packed once when it
 * is a constant initializer; float64 and integer types use plain loops.
 */
final class GemmKernel {
    private GemmKernel() {
    }

    static CpuKernel create(NodeView node) {
        boolean transA = node.intAttr("transA", 0) != 0;
        boolean transB = node.intAttr("transB", 0) != 0;
        float alpha = node.floatAttr("alpha", 1f);
        float beta = node.floatAttr("beta", 1f);
        ValueView bv = node.inputs().get(1);
        PackedMatrix constB = null;
        long[] constShape = null;
        if (bv.isConstantInitializer()) {
            Tensor b = bv.initializer().orElse(null);
            if (b != null && WorkingArrays.viaFloat(b.type()) && b.rank() == 2) {
                constShape = b.shape();
                constB = packB(Values.toFloats(b), b.shape(), transB);
            }
        }
        PackedMatrix packed = constB;
        long[] packedShape = constShape;
        return (in, ctx) -> {
            Tensor c = in.length > 2 ? in[2] : null;
            return new Tensor[] {gemm(in[0], in[1], c, transA, transB, alpha, beta, packed, packedShape, ctx)};
        };
    }

    private static PackedMatrix packB(float[] b, long[] shape, boolean transB) {
        int r = (int) shape[0];
        int c = (int) shape[1];
        return transB ? PackedMatrix.pack(b, 0, 1, c, c, r) : PackedMatrix.pack(b, 0, c, 1, r, c);
    }

    private static Tensor gemm(Tensor a, Tensor b, Tensor c, boolean transA, boolean transB, float alpha,
            float beta, PackedMatrix packed, long[] packedShape, KernelContext ctx) {
        if (a.rank() != 2 || b.rank() != 2) {
            throw new InvalidArgumentException("Gemm inputs A and B must have rank 2, got [" + Tensor.shapeString(
                    a.shape()) + "] and [" + Tensor.shapeString(b.shape()) + "]");
        }
        if (a.type() != b.type()) {
            throw new InvalidArgumentException("Gemm inputs have different types " + a.type() + " and " + b.type());
        }
        int m = (int) (transA ? a.dim(1) : a.dim(0));
        int k = (int) (transA ? a.dim(0) : a.dim(1));
        int kb = (int) (transB ? b.dim(1) : b.dim(0));
        int n = (int) (transB ? b.dim(0) : b.dim(1));
        if (k != kb) {
            throw new InvalidArgumentException("Gemm inner dimensions differ: A' is " + m + "x" + k + ", B' is " + kb
                    + "x" + n);
        }
        long[] shape = {m, n};
        int[] cMap = null;
        if (c != null && beta != 0f) {
            if (c.rank() > 2 || !java.util.Arrays.equals(Broadcast.shape(c.shape(), shape), shape)) {
                throw new InvalidArgumentException("Gemm input C of shape [" + Tensor.shapeString(c.shape())
                        + "] cannot be broadcast to [" + m + ", " + n + "]");
            }
            cMap = Broadcast.indexMap(c.shape(), shape);
        }
        ElementType type = a.type();
        if (WorkingArrays.viaFloat(type)) {
            float[] y = new float[m * n];
            if (cMap != null) {
                float[] cv = Values.toFloats(c);
                for (int i = 0; i < y.length; i++) {
                    y[i] = beta * cv[cMap[i]];
                }
            }
            float[] av = Values.toFloats(a);
            if (transA) {
                av = transpose(av, k, m);
            }
            PackedMatrix pb = packed != null && java.util.Arrays.equals(packedShape, b.shape()) ? packed
                    : packB(Values.toFloats(b), b.shape(), transB);
            multiply(av, m, k, pb, y, alpha, cMap != null, ctx);
            return WorkingArrays.fromFloats(type, shape, y);
        }
        if (type == ElementType.DOUBLE || type.isInteger()) {
            boolean integer = type.isInteger();
            double[] y = new double[m * n];
            long[] yl = new long[integer ? m * n : 0];
            for (int i = 0; i < m; i++) {
                for (int j = 0; j < n; j++) {
                    int o = i * n + j;
                    if (integer) {
                        long s = 0;
                        for (int kk = 0; kk < k; kk++) {
                            s += a.getLong(transA ? kk * m + i : i * k + kk) * b.getLong(transB ? j * k + kk
                                    : kk * n + j);
                        }
                        yl[o] = (long) (alpha * s) + (cMap != null ? (long) (beta * c.getLong(cMap[o])) : 0);
                    } else {
                        double s = 0;
                        for (int kk = 0; kk < k; kk++) {
                            s += a.getDouble(transA ? kk * m + i : i * k + kk) * b.getDouble(transB ? j * k + kk
                                    : kk * n + j);
                        }
                        y[o] = alpha * s + (cMap != null ? beta * c.getDouble(cMap[o]) : 0);
                    }
                }
            }
            return integer ? Values.fromLongs(type, shape, yl) : Tensor.of(type, shape, y);
        }
        throw new NotImplementedException("Gemm is not implemented for type " + type);
    }

    private static void multiply(float[] a, int m, int k, PackedMatrix b, float[] y, float alpha, boolean acc,
            KernelContext ctx) {
        int n = b.columnCount();
        if (m == 0 || n == 0) {
            return;
        }
        int rowBlocks = (m + MatMulKernel.ROW_BLOCK - 1) / MatMulKernel.ROW_BLOCK;
        int panels = b.panelCount();
        ctx.parallelFor(rowBlocks * panels, 1, (from, to) -> {
            for (int u = from; u < to; u++) {
                int p = u % panels;
                int i0 = (u / panels) * MatMulKernel.ROW_BLOCK;
                int i1 = Math.min(m, i0 + MatMulKernel.ROW_BLOCK);
                Sgemm.panel(a, 0, k, i0, i1, k, b.rows(), p * k, b.width(p), y, p * PackedMatrix.PANEL, n, alpha,
                        acc);
            }
        });
    }

    private static float[] transpose(float[] a, int rows, int cols) {
        float[] t = new float[a.length];
        for (int r = 0; r < rows; r++) {
            for (int c = 0; c < cols; c++) {
                t[c * rows + r] = a[r * cols + c];
            }
        }
        return t;
    }
}
