package io.ortex.testing;

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
}
