package io.ortex.ep.example.program;

import io.ortex.api.InvalidArgumentException;
import io.ortex.api.Tensor;
import io.ortex.api.spi.KernelContext;
import java.util.Arrays;

/**
 * ONNX {@code Gemm} on float32: {@code Y = alpha * A' * B' + beta * C} for 2-D A and B, where C broadcasts to
 * {@code [M, N]}. B is used in the {@code [N, K]} layout; a B stored as {@code [K, N]} is transposed per run, which
 * is why the compiler packs constant B weights as {@code [N, K]} once and sets {@link GemmAttributes#transB()}.
 * Stateless.
 */
final class GemmKernel {
    private GemmKernel() {
    }

    /**
     * Computes the product.
     *
     * @param a A, {@code [M, K]} or {@code [K, M]} when {@code transA}
     * @param b B, {@code [K, N]} or {@code [N, K]} when {@code transB}
     * @param c C, or {@code null} when omitted
     * @param attributes transposition flags and factors
     * @param context the run's context, for its threads
     * @return Y, {@code [M, N]}
     */
    static Tensor run(Tensor a, Tensor b, Tensor c, GemmAttributes attributes, KernelContext context) {
        if (a.rank() != 2 || b.rank() != 2) {
            throw new InvalidArgumentException("Gemm: A and B must be 2-D, got " + Tensor.shapeString(a.shape())
                    + " and " + Tensor.shapeString(b.shape()));
        }
        int m = (int) (attributes.transA() ? a.dim(1) : a.dim(0));
        int k = (int) (attributes.transA() ? a.dim(0) : a.dim(1));
        int n = (int) (attributes.transB() ? b.dim(0) : b.dim(1));
        int kb = (int) (attributes.transB() ? b.dim(1) : b.dim(0));
        if (k != kb) {
            throw new InvalidArgumentException("Gemm: inner dimensions differ, A is " + Tensor.shapeString(a.shape())
                    + (attributes.transA() ? " (transA)" : "") + " and B is " + Tensor.shapeString(b.shape())
                    + (attributes.transB() ? " (transB)" : ""));
        }
        float[] av = attributes.transA() ? MatrixMath.transpose(a.floats(), 1, k, m) : a.floats();
        float[] bt = attributes.transB() ? b.floats() : MatrixMath.transpose(b.floats(), 1, k, n);
        long[] shape = {m, n};
        float beta = attributes.beta();
        float alpha = attributes.alpha();
        boolean withC = c != null && beta != 0f;
        float[] cv = withC ? c.floats() : null;
        int[] cStrides = withC ? cStrides(c, shape) : null;
        float[] out = new float[Math.multiplyExact(m, n)];
        context.parallelFor(m, MatrixMath.minChunk((long) n * k), (from, to) -> {
            MatrixMath.multiplyRows(av, 0, bt, 0, out, 0, from, to, n, k);
            for (int i = from; i < to; i++) {
                for (int j = 0; j < n; j++) {
                    float v = alpha * out[i * n + j];
                    if (withC) {
                        v += beta * cv[i * cStrides[0] + j * cStrides[1]];
                    }
                    out[i * n + j] = v;
                }
            }
        });
        return Tensor.ofFloats(out, shape);
    }

    /** C's strides along Y's two axes, checking that C broadcasts to Y (unidirectionally). */
    private static int[] cStrides(Tensor c, long[] shape) {
        long[] broadcast = c.rank() > 2 ? null : Broadcasting.shape(c.shape(), shape, "Gemm");
        if (broadcast == null || !Arrays.equals(broadcast, shape)) {
            throw new InvalidArgumentException("Gemm: C of shape " + Tensor.shapeString(c.shape())
                    + " does not broadcast to " + Tensor.shapeString(shape));
        }
        return Broadcasting.strides(c.shape(), shape);
    }
}
