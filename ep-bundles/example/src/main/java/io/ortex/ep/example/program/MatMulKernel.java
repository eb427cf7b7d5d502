package io.ortex.ep.example.program;

import io.ortex.api.InvalidArgumentException;
import io.ortex.api.Tensor;
import io.ortex.api.spi.KernelContext;
import java.util.Arrays;

/**
 * ONNX {@code MatMul} on float32: numpy's {@code matmul}, with 1-D operands promoted to matrices and the batch axes
 * broadcast. The right operand is brought into the transposed {@code [..., N, K]} layout (at compile time for
 * constant weights, see {@link MatMulAttributes#bTransposed()}) so that every output element is a dot product of two
 * contiguous rows. Stateless.
 */
final class MatMulKernel {
    private MatMulKernel() {
    }

    /**
     * Multiplies two tensors.
     *
     * @param a the left operand
     * @param b the right operand, transposed when {@code attributes.bTransposed()}
     * @param attributes how B is stored
     * @param context the run's context, for its threads
     * @return the product
     */
    static Tensor run(Tensor a, Tensor b, MatMulAttributes attributes, KernelContext context) {
        long[] aShape = a.shape();
        long[] bShape = b.shape();
        if (aShape.length == 0 || bShape.length == 0) {
            throw new InvalidArgumentException("MatMul: operands must have rank 1 or more, got "
                    + Tensor.shapeString(aShape) + " and " + Tensor.shapeString(bShape));
        }
        boolean aVector = aShape.length == 1;
        boolean bVector = bShape.length == 1;
        // 1-D operands: A [K] is a [1, K] matrix; B [K] is a [K, 1] matrix, whose transpose [1, K] has the same data
        long[] aMat = aVector ? new long[] {1, aShape[0]} : aShape;
        boolean bTransposed = attributes.bTransposed() || bVector;
        long[] bMat = bVector ? new long[] {1, bShape[0]} : bShape;
        int m = (int) aMat[aMat.length - 2];
        int k = (int) aMat[aMat.length - 1];
        int n = (int) (bTransposed ? bMat[bMat.length - 2] : bMat[bMat.length - 1]);
        int kb = (int) (bTransposed ? bMat[bMat.length - 1] : bMat[bMat.length - 2]);
        if (k != kb) {
            throw new InvalidArgumentException("MatMul: inner dimensions differ, A is " + Tensor.shapeString(aShape)
                    + " and B is " + Tensor.shapeString(bShape) + (attributes.bTransposed() ? " (packed [.., N, K])"
                    : ""));
        }
        long[] aBatch = Arrays.copyOf(aMat, aMat.length - 2);
        long[] bBatch = Arrays.copyOf(bMat, bMat.length - 2);
        long[] batch = Broadcasting.shape(aBatch, bBatch, "MatMul");
        int[] aIndex = Broadcasting.indexMap(aBatch, batch);
        int[] bIndex = Broadcasting.indexMap(bBatch, batch);
        float[] bt = bTransposed ? b.floats()
                : MatrixMath.transpose(b.floats(), Tensor.checkedElementCount(bBatch), kb, n);
        float[] av = a.floats();
        float[] out = new float[Math.multiplyExact(Math.multiplyExact(aIndex.length, m), n)];
        int rows = aIndex.length * m;
        context.parallelFor(rows, MatrixMath.minChunk((long) n * k), (from, to) -> {
            for (int row = from; row < to; row++) {
                int batchIndex = row / m;
                int i = row % m;
                MatrixMath.multiplyRows(av, aIndex[batchIndex] * m * k, bt, bIndex[batchIndex] * n * k, out,
                        batchIndex * m * n, i, i + 1, n, k);
            }
        });
        return Tensor.ofFloats(out, outputShape(batch, aVector, bVector, m, n));
    }

    private static long[] outputShape(long[] batch, boolean aVector, boolean bVector, int m, int n) {
        long[] shape = Arrays.copyOf(batch, batch.length + (aVector ? 0 : 1) + (bVector ? 0 : 1));
        int axis = batch.length;
        if (!aVector) {
            shape[axis++] = m;
        }
        if (!bVector) {
            shape[axis] = n;
        }
        return shape;
    }
}
