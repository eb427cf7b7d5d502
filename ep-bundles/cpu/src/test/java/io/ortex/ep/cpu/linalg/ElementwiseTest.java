package io.ortex.ep.cpu.linalg;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * The element-wise functions (on the Vector API where the JVM offers it, in plain Java otherwise) against
 * {@link Math} in double precision, over sweeps that reach the float range's edges, and with lengths that leave
 * tails after the whole vectors.
 */
class ElementwiseTest {
    private static final float[] EDGES = {Float.NEGATIVE_INFINITY, -1e30f, -104f, -88f, -87.34f, -87.3f, -20f, -1f,
        -1e-20f, -0f, 0f, Float.MIN_VALUE, 1e-7f, 0.3465f, 0.3466f, 1f, 10f, 80f, 88.37f, 88.38f, 88.72f, 88.73f,
        89f, 1e30f, Float.POSITIVE_INFINITY, Float.NaN};

    /** A sweep of arguments: the edges, then evenly spread and random values across {@code [-90, 90]}. */
    private static float[] sweep() {
        int n = 20_003;
        float[] x = new float[n];
        System.arraycopy(EDGES, 0, x, 0, EDGES.length);
        SplittableRandom r = new SplittableRandom(5);
        for (int i = EDGES.length; i < n; i++) {
            x[i] = i % 2 == 0 ? -90f + 180f * i / n : (float) (r.nextDouble() * 180 - 90);
        }
        return x;
    }

    @Test
    void expIsWithinTwoUlpsInTheNormalRangeAndExactAtTheEdges() {
        float[] x = sweep();
        float[] y = new float[x.length];
        Elementwise.unary(Elementwise.Unary.EXP, x, 0, y, 0, x.length);
        for (int i = 0; i < x.length; i++) {
            double want = Math.exp(x[i]);
            if (Double.isNaN(want)) {
                assertTrue(Float.isNaN(y[i]), "exp(NaN)");
            } else if (want > Float.MAX_VALUE) {
                assertEquals(Float.POSITIVE_INFINITY, y[i], "exp(" + x[i] + ")");
            } else if (want < Float.MIN_NORMAL) {
                // below the normal range the result may be flushed to zero
                assertEquals(want, y[i], Float.MIN_NORMAL, "exp(" + x[i] + ")");
            } else {
                assertEquals(want, y[i], 2 * Math.ulp((float) want), "exp(" + x[i] + ")");
            }
        }
    }

    @Test
    void sigmoidFollowsItsDefinition() {
        float[] x = sweep();
        float[] y = new float[x.length];
        Elementwise.unary(Elementwise.Unary.SIGMOID, x, 0, y, 0, x.length);
        for (int i = 0; i < x.length; i++) {
            double want = 1 / (1 + Math.exp(-(double) x[i]));
            if (Double.isNaN(want)) {
                assertTrue(Float.isNaN(y[i]), "sigmoid(NaN)");
            } else {
                assertEquals(want, y[i], 3e-7 * Math.max(want, 1e-30), "sigmoid(" + x[i] + ")");
            }
        }
        float[] a = x.clone();
        Activation.SIGMOID.apply(a, 0, a.length);
        assertEquals(java.util.Arrays.toString(y), java.util.Arrays.toString(a), "the activation and the op agree");
    }

    @Test
    void softmaxRowsMatchADoublePrecisionReference() {
        SplittableRandom r = new SplittableRandom(9);
        for (int n : new int[] {1, 7, 8, 9, 31, 128, 1000}) {
            float[] x = new float[n + 3];
            for (int i = 0; i < x.length; i++) {
                x[i] = (float) (r.nextDouble() * 40 - 20);
            }
            x[3] = -1e4f;
            float[] y = new float[n + 5];
            Elementwise.softmax(x, 3, y, 5, n);
            double max = Double.NEGATIVE_INFINITY;
            for (int i = 0; i < n; i++) {
                max = Math.max(max, x[3 + i]);
            }
            double sum = 0;
            for (int i = 0; i < n; i++) {
                sum += Math.exp(x[3 + i] - max);
            }
            for (int i = 0; i < n; i++) {
                double want = Math.exp(x[3 + i] - max) / sum;
                // x - max is rounded to float first, as it is in ONNX Runtime: an error of 1e-5 relative at |x| = 20
                assertEquals(want, y[5 + i], 1e-5 * want + 1e-30, "row of " + n + ", element " + i);
            }
        }
    }

    @Test
    void aNaNAnywhereInASoftmaxRowMakesTheRowNaN() {
        for (int n : new int[] {50, 128}) {
            for (int at : new int[] {0, 17, 40, 49}) {
                float[] x = new float[n];
                for (int i = 0; i < n; i++) {
                    x[i] = i % 7;
                }
                x[at] = Float.NaN;
                float[] y = new float[n];
                Elementwise.softmax(x, 0, y, 0, n);
                for (int i = 0; i < n; i++) {
                    assertTrue(Float.isNaN(y[i]), "row of " + n + " with NaN at " + at + ", element " + i);
                }
            }
        }
    }
}
