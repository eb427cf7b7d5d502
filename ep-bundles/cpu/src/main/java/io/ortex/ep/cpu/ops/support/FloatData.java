package io.ortex.ep.cpu.ops.support;

import io.ortex.api.NotImplementedException;
import io.ortex.api.Tensor;

/**
 * Checks and sizes for kernels that compute in floating point: the floating-point type check and the parallel
 * chunk size. Conversions to and from working arrays are in {@link Values} and {@link WorkingArrays}.
 */
public final class FloatData {
    private FloatData() {
    }

    /**
     * Checks that a tensor has a floating-point element type.
     *
     * @param t the tensor
     * @param what what the tensor is, for the message (e.g. {@code "LayerNormalization input X"})
     * @throws NotImplementedException when the type is not float32, float64, float16 or bfloat16
     */
    public static void requireFloating(Tensor t, String what) {
        if (!t.type().isFloatingPoint()) {
            throw new NotImplementedException(what + " has type " + t.type()
                    + "; only float32, float64, float16 and bfloat16 are supported");
        }
    }

    /**
     * Picks a chunk size for {@code parallelFor} so that each task handles about 32K elements.
     *
     * @param itemSize the elements handled per item
     * @return the minimum items per task
     */
    public static int chunk(long itemSize) {
        return (int) Math.max(1, 32768 / Math.max(1, itemSize));
    }
}
