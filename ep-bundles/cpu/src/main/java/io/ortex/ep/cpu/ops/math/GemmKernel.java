package io.ortex.ep.cpu.ops.math;

import io.ortex.api.ElementType;
import io.ortex.api.InvalidArgumentException;
import io.ortex.api.NotImplementedException;
import io.ortex.api.Tensor;
import io.ortex.api.spi.KernelContext;
import io.ortex.api.spi.NodeView;
import io.ortex.api.spi.ValueView;
import io.ortex.ep.cpu.CpuKernel;
import io.ortex.ep.cpu.linalg.Activation;
import io.ortex.ep.cpu.linalg.Epilogue;
import io.ortex.ep.cpu.linalg.Gemm;
import io.ortex.ep.cpu.linalg.PackedB;
import io.ortex.ep.cpu.ops.support.Broadcast;
import io.ortex.ep.cpu.ops.support.Values;
import io.ortex.ep.cpu.ops.support.WorkingArrays;

/**
 * Gemm: {@code Y = alpha * A' x B' + beta * C} with optional transposes and C broadcast to the result (optional
 * from opset 11). Float32 (and float16/bfloat16 through float32) runs on {@link Gemm} with B packed once when it
 * is a constant initializer, a bias row C added in the product's epilogue; float64 and integer types use plain
 * loops.
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
        PackedB constB = null;
        long[] constShape = null;
        if (bv.isConstantInitializer()) {
            Tensor b = bv.initializer().orElse(null);
            if (b != null && WorkingArrays.viaFloat(b.type()) && b.rank() == 2) {
                constShape = b.shape();
                constB = packB(Values.toFloats(b), b.shape(), transB);
            }
        }
        PackedB packed = constB;
        long[] packedShape = constShape;
        return (in, ctx) -> {
            Tensor c = in.length > 2 ? in[2] : null;
            return new Tensor[] {gemm(in[0], in[1], c, transA, transB, alpha, beta, packed, packedShape, ctx)};
        };
    }

    private static PackedB packB(float[] b, long[] shape, boolean transB) {
        int r = (int) shape[0];
        int c = (int) shape[1];
        return transB ? Gemm.packB(b, 0, 1, c, c, r) : Gemm.packB(b, 0, c, 1, r, c);
    }

    private static Tensor gemm(Tensor a, Tensor b, Tensor c, boolean transA, boolean transB, float alpha,
            float beta, PackedB packed, long[] packedShape, KernelContext ctx) {
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
            boolean columnBias = cMap != null && beta == 1f && c.type() == ElementType.FLOAT && c.size() == n
                    && (c.rank() == 1 || c.rank() == 2 && c.dim(1) == n);
            boolean broadcastC = cMap != null && !columnBias;
            Tensor out = type == ElementType.FLOAT
                    ? ctx.allocateUninitialized(ElementType.FLOAT, shape) : Tensor.zeros(ElementType.FLOAT, shape);
            float[] y = out.floats();
            if (broadcastC) {
                float[] cv = Values.toFloats(c);
                for (int i = 0; i < y.length; i++) {
                    y[i] = beta * cv[cMap[i]];
                }
            }
            float[] av = Values.toFloats(a);
            PackedB pb = packed != null && java.util.Arrays.equals(packedShape, b.shape()) ? packed
                    : packB(Values.toFloats(b), b.shape(), transB);
            Epilogue ep = new Epilogue(alpha, broadcastC, columnBias ? c.floats() : null, 0, false,
                    Activation.NONE);
            Gemm.multiply(av, 0, transA ? 1 : k, transA ? m : 1, m, pb, y, 0, n, ep, ctx);
            return type == ElementType.FLOAT ? out : WorkingArrays.fromFloats(type, shape, y);
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
}
