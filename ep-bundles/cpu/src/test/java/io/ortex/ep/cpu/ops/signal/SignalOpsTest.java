package io.ortex.ep.cpu.ops.signal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.ortex.api.ElementType;
import io.ortex.api.InvalidArgumentException;
import io.ortex.api.Tensor;
import io.ortex.ep.cpu.OneNodeModel;
import org.junit.jupiter.api.Test;

/** Focused cases of the signal ops, checked against a direct O(n^2) DFT and the window formulas. */
class SignalOpsTest {
    /** The direct DFT of a complex signal, interleaved (re, im). */
    private static double[] naiveDft(double[] x, int n, boolean inverse) {
        double[] y = new double[2 * n];
        for (int k = 0; k < n; k++) {
            for (int j = 0; j < n; j++) {
                double a = (inverse ? 2 : -2) * Math.PI * j * k / n;
                y[2 * k] += x[2 * j] * Math.cos(a) - x[2 * j + 1] * Math.sin(a);
                y[2 * k + 1] += x[2 * j] * Math.sin(a) + x[2 * j + 1] * Math.cos(a);
            }
            if (inverse) {
                y[2 * k] /= n;
                y[2 * k + 1] /= n;
            }
        }
        return y;
    }

    private static float[] toFloats(double[] d) {
        float[] f = new float[d.length];
        for (int i = 0; i < d.length; i++) {
            f[i] = (float) d[i];
        }
        return f;
    }

    @Test
    void complexDftOfEveryLengthMatchesTheDirectSum() {
        for (int n : new int[] {1, 2, 3, 5, 8, 12, 17, 64, 100}) {
            double[] x = new double[2 * n];
            for (int i = 0; i < x.length; i++) {
                x[i] = Math.sin(0.7 * i) + 0.1 * i;
            }
            for (boolean inverse : new boolean[] {false, true}) {
                Tensor in = Tensor.ofFloats(toFloats(x), 1, n, 2);
                Tensor y = new OneNodeModel("DFT", 17).in(in).attr("inverse", inverse ? 1L : 0L).run1();
                assertArrayEquals(new long[] {1, n, 2}, y.shape());
                assertArrayEquals(toFloats(naiveDft(x, n, inverse)), y.floats(), 1e-3f, "n=" + n);
            }
        }
    }

    @Test
    void opset20TakesTheAxisAsAnInputAndDefaultsToTheSecondLast() {
        // [2, 3, 1]: real signal; transform along axis 0 (given as -3) or axis 1 (default -2)
        float[] v = {1, 2, 3, 4, 5, 6};
        Tensor x = Tensor.ofFloats(v, 2, 3, 1);
        Tensor along0 = new OneNodeModel("DFT", 20).in(x).none().in(Tensor.ofLongs(new long[] {-3})).run1();
        assertArrayEquals(new long[] {2, 3, 2}, along0.shape());
        // column sums and differences: X[0] = a + b, X[1] = a - b
        assertArrayEquals(new float[] {5, 0, 7, 0, 9, 0, -3, 0, -3, 0, -3, 0}, along0.floats(), 1e-5f);
        Tensor defaultAxis = new OneNodeModel("DFT", 20).in(x).run1();
        Tensor opset17 = new OneNodeModel("DFT", 17).in(x).attr("axis", 1L).run1();
        assertArrayEquals(opset17.floats(), defaultAxis.floats(), 1e-6f);
        assertEquals(6f, defaultAxis.floats()[0], 1e-5f);
    }

    @Test
    void onesidedRealTransformAndItsInverseRoundTrip() {
        int n = 10;
        float[] v = new float[n];
        for (int i = 0; i < n; i++) {
            v[i] = (float) Math.cos(i * i * 0.3);
        }
        Tensor x = Tensor.ofFloats(v, 1, n, 1);
        Tensor spectrum = new OneNodeModel("DFT", 17).in(x).attr("onesided", 1L).run1();
        assertArrayEquals(new long[] {1, n / 2 + 1, 2}, spectrum.shape());
        Tensor back = new OneNodeModel("DFT", 17).in(spectrum).attr("onesided", 1L).attr("inverse", 1L).run1();
        assertArrayEquals(new long[] {1, n, 1}, back.shape());
        assertArrayEquals(v, back.floats(), 1e-5f);
    }

    @Test
    void dftLengthPadsAndTruncatesAndFloat64IsKept() {
        Tensor x = Tensor.ofDoubles(new double[] {1, 2, 3}, 3, 1);
        Tensor padded = new OneNodeModel("DFT", 17).in(x).in(Tensor.ofLongs(new long[] {4})).attr("axis", 0L).run1();
        assertEquals(ElementType.DOUBLE, padded.type());
        // [1, 2, 3, 0]: X0 = 6, X1 = 1 - 3 + i(0 - 2) ... = -2 - 2i, X2 = 2, X3 = -2 + 2i
        assertArrayEquals(new double[] {6, 0, -2, -2, 2, 0, -2, 2}, padded.doubles(), 1e-12);
        Tensor cut = new OneNodeModel("DFT", 17).in(x).in(Tensor.ofLongs(new long[] {2})).attr("axis", 0L).run1();
        assertArrayEquals(new double[] {3, 0, -1, 0}, cut.doubles(), 1e-12);
    }

    @Test
    void dftRejectsTheComponentAxis() {
        Tensor x = Tensor.ofFloats(new float[] {1, 2}, 2, 1);
        assertThrows(InvalidArgumentException.class,
                () -> new OneNodeModel("DFT", 17).in(x).attr("axis", 1L).run1());
    }

    @Test
    void stftFramesWindowsAndTransforms() {
        // 6 samples, frames of 4 every 2: frames start at 0 and 2
        float[] s = {1, 2, 3, 4, 5, 6};
        Tensor signal = Tensor.ofFloats(s, 1, 6, 1);
        Tensor window = Tensor.ofFloats(new float[] {0, 1, 1, 0}, 4);
        Tensor y = new OneNodeModel("STFT", 17).in(signal).in(Tensor.ofLongs(new long[] {2})).in(window).run1();
        assertArrayEquals(new long[] {1, 2, 3, 2}, y.shape());
        // frame 0 windowed: [0, 2, 3, 0] -> X0 = 5, X1 = -3 - 2i, X2 = 1
        // frame 1 windowed: [0, 4, 5, 0] -> X0 = 9, X1 = -5 - 4i, X2 = 1
        assertArrayEquals(new float[] {5, 0, -3, -2, 1, 0, 9, 0, -5, -4, 1, 0}, y.floats(), 1e-5f);
        Tensor twoSided = new OneNodeModel("STFT", 17).in(signal).in(Tensor.ofLongs(new long[] {2})).none()
                .in(Tensor.ofLongs(new long[] {4})).attr("onesided", 0L).run1();
        assertArrayEquals(new long[] {1, 2, 4, 2}, twoSided.shape());
        assertEquals(10f, twoSided.floats()[0], 1e-5f);
    }

    @Test
    void windowsFollowTheirCosineSums() {
        Tensor size = Tensor.ofLongs(new long[] {4});
        Tensor hann = new OneNodeModel("HannWindow", 17).in(size).run1();
        assertArrayEquals(new float[] {0, 0.5f, 1, 0.5f}, hann.floats(), 1e-6f);
        Tensor hannSym = new OneNodeModel("HannWindow", 17).in(Tensor.ofInts(new int[] {5})).attr("periodic", 0L)
                .run1();
        assertArrayEquals(new float[] {0, 0.5f, 1, 0.5f, 0}, hannSym.floats(), 1e-6f);
        Tensor hamming = new OneNodeModel("HammingWindow", 17).in(size).attr("output_datatype", 11L).run1();
        assertEquals(ElementType.DOUBLE, hamming.type());
        assertArrayEquals(new double[] {4.0 / 46, 25.0 / 46, 1, 25.0 / 46}, hamming.doubles(), 1e-12);
        Tensor blackman = new OneNodeModel("BlackmanWindow", 17).in(size).run1();
        assertArrayEquals(new float[] {0, 0.34f, 1, 0.34f}, blackman.floats(), 1e-6f);
        Tensor empty = new OneNodeModel("HannWindow", 17).in(Tensor.ofLongs(new long[] {0})).run1();
        assertArrayEquals(new long[] {0}, empty.shape());
    }

    @Test
    void melWeightMatrixBuildsTriangles() {
        Tensor y = new OneNodeModel("MelWeightMatrix", 17).in(Tensor.ofInts(new int[] {2}))
                .in(Tensor.ofInts(new int[] {8})).in(Tensor.ofInts(new int[] {8000}))
                .in(Tensor.ofFloats(new float[] {0})).in(Tensor.ofFloats(new float[] {4000})).run1();
        assertArrayEquals(new long[] {5, 2}, y.shape());
        float[] w = y.floats();
        for (int band = 0; band < 2; band++) {
            float peak = 0;
            for (int bin = 0; bin < 5; bin++) {
                peak = Math.max(peak, w[bin * 2 + band]);
            }
            assertEquals(1f, peak, 1e-6f, "band " + band);
        }
    }
}
