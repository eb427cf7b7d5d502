package io.ortex.ep.example;

import io.ortex.api.Tensor;
import java.util.Random;

/** Random test tensors. */
final class Tensors {
    private Tensors() {
    }

    /** A float32 tensor of uniform values in [-1, 1). */
    static Tensor random(Random random, long... shape) {
        float[] data = new float[Tensor.checkedElementCount(shape)];
        for (int i = 0; i < data.length; i++) {
            data[i] = random.nextFloat() * 2f - 1f;
        }
        return Tensor.ofFloats(data, shape);
    }
}
