package io.ortex.testing;

import io.ortex.api.Tensor;
import java.util.Random;
import java.util.SplittableRandom;

/** Reproducible random float data for tests: the same seed always gives the same values. */
public final class RandomFloats {
    private RandomFloats() {
    }

    /**
     * Draws floats spread evenly over [-1, 1).
     *
     * @param n how many
     * @param seed the seed of the {@link SplittableRandom} they come from
     * @return the values
     */
    public static float[] uniform(int n, long seed) {
        SplittableRandom r = new SplittableRandom(seed);
        float[] f = new float[n];
        for (int i = 0; i < n; i++) {
            f[i] = (float) (r.nextDouble() * 2 - 1);
        }
        return f;
    }

    /**
     * Makes a float32 tensor whose values are spread evenly over [-1, 1), drawn in order from a generator the caller
     * keeps, so successive tensors differ and a test class's data depends only on its own seed.
     *
     * @param random the generator
     * @param shape the shape
     * @return the tensor
     */
    public static Tensor uniform(Random random, long... shape) {
        float[] v = new float[Tensor.checkedElementCount(shape)];
        for (int i = 0; i < v.length; i++) {
            v[i] = random.nextFloat() * 2 - 1;
        }
        return Tensor.ofFloats(v, shape);
    }
}
