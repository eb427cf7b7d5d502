package io.ortex.ep.example.program;

import io.ortex.api.Tensor;
import io.ortex.api.spi.KernelContext;

/**
 * The element-wise kernels: {@code Add} and {@code Mul} with multidirectional broadcasting, and {@code Relu}.
 * Stateless; each call returns a new tensor.
 */
final class ElementwiseKernels {
    private ElementwiseKernels() {
    }

    /**
     * Adds or multiplies two float32 tensors, broadcasting them against each other.
     *
     * @param op {@link OpCode#ADD} or {@link OpCode#MUL}
     * @param a the first operand
     * @param b the second operand
     * @param context the run's context, for its threads
     * @return the result, of the broadcast shape
     */
    static Tensor binary(OpCode op, Tensor a, Tensor b, KernelContext context) {
        long[] shape = Broadcasting.shape(a.shape(), b.shape(), op.onnxName());
        float[] out = new float[Tensor.checkedElementCount(shape)];
        if (out.length == 0) {
            return Tensor.ofFloats(out, shape);
        }
        float[] x = a.floats();
        float[] y = b.floats();
        boolean add = op == OpCode.ADD;
        int rank = shape.length;
        int inner = rank == 0 ? 1 : (int) shape[rank - 1];
        int[] sa = Broadcasting.strides(a.shape(), shape);
        int[] sb = Broadcasting.strides(b.shape(), shape);
        int innerA = rank == 0 ? 0 : sa[rank - 1];
        int innerB = rank == 0 ? 0 : sb[rank - 1];
        int rows = out.length / inner;
        context.parallelFor(rows, MatrixMath.minChunk(inner), (from, to) -> {
            for (int row = from; row < to; row++) {
                int offA = Broadcasting.offset(row, shape, sa, rank - 1);
                int offB = Broadcasting.offset(row, shape, sb, rank - 1);
                int base = row * inner;
                for (int j = 0; j < inner; j++) {
                    float u = x[offA + j * innerA];
                    float v = y[offB + j * innerB];
                    out[base + j] = add ? u + v : u * v;
                }
            }
        });
        return Tensor.ofFloats(out, shape);
    }

    /**
     * Computes {@code max(x, 0)} into a new tensor.
     *
     * @param x the input
     * @param context the run's context, for its threads
     * @return the result
     */
    static Tensor relu(Tensor x, KernelContext context) {
        float[] out = x.floats().clone();
        reluInPlace(out, context);
        return Tensor.ofFloats(out, x.shape());
    }

    /**
     * Replaces each element by {@code max(x, 0)}, in place: the epilogue of an instruction with a fused Relu, applied
     * to the buffer that instruction just created. NaN stays NaN.
     *
     * @param data the elements
     * @param context the run's context, for its threads
     */
    static void reluInPlace(float[] data, KernelContext context) {
        context.parallelFor(data.length, 1 << 14, (from, to) -> {
            for (int i = from; i < to; i++) {
                if (data[i] < 0f) {
                    data[i] = 0f;
                }
            }
        });
    }
}
