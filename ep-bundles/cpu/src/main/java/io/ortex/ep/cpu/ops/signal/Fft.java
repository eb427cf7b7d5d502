package io.ortex.ep.cpu.ops.signal;

/**
 * A plan for the discrete Fourier transform of one length, in double precision: an iterative radix-2 FFT when the
 * length is a power of two, otherwise Bluestein's chirp-z algorithm over a power-of-two FFT, so every length costs
 * O(n log n). The plan holds only read-only tables and is safe to share between threads; callers pass the scratch
 * arrays ({@link #scratchSize()} long) that Bluestein's algorithm needs.
 */
final class Fft {
    private final int n;
    /** Twiddle factors {@code cos(2 pi k / n)} and {@code sin(2 pi k / n)}, k < n/2 (radix-2 plans only). */
    private final double[] cos;
    private final double[] sin;
    /** Bit-reversal permutation (radix-2 plans only). */
    private final int[] reverse;
    /** The power-of-two plan the chirp convolution runs on (Bluestein plans only). */
    private final Fft inner;
    /** The chirp {@code exp(-i pi k^2 / n)}, k < n (Bluestein plans only). */
    private final double[] chirpRe;
    private final double[] chirpIm;
    /** The transform of the conjugate chirp, wrapped to the inner length (Bluestein plans only). */
    private final double[] kernelRe;
    private final double[] kernelIm;

    /**
     * Makes the plan.
     *
     * @param n the transform length, at least 1
     */
    Fft(int n) {
        this.n = n;
        if (Integer.bitCount(n) == 1) {
            int half = n / 2;
            cos = new double[half];
            sin = new double[half];
            for (int k = 0; k < half; k++) {
                double angle = 2 * Math.PI * k / n;
                cos[k] = Math.cos(angle);
                sin[k] = Math.sin(angle);
            }
            reverse = new int[n];
            int bits = Integer.numberOfTrailingZeros(n);
            for (int i = 0; i < n && bits > 0; i++) {
                reverse[i] = Integer.reverse(i) >>> (32 - bits);
            }
            inner = null;
            chirpRe = chirpIm = kernelRe = kernelIm = null;
        } else {
            cos = sin = null;
            reverse = null;
            int m = Integer.highestOneBit(2 * n - 1) << 1;
            inner = new Fft(m);
            chirpRe = new double[n];
            chirpIm = new double[n];
            long twoN = 2L * n;
            for (int k = 0; k < n; k++) {
                long sq = ((long) k * k) % twoN;
                double angle = Math.PI * sq / n;
                chirpRe[k] = Math.cos(angle);
                chirpIm[k] = -Math.sin(angle);
            }
            kernelRe = new double[m];
            kernelIm = new double[m];
            for (int k = 0; k < n; k++) {
                kernelRe[k] = chirpRe[k];
                kernelIm[k] = -chirpIm[k];
                if (k > 0) {
                    kernelRe[m - k] = chirpRe[k];
                    kernelIm[m - k] = -chirpIm[k];
                }
            }
            inner.forward(kernelRe, kernelIm, null, null);
        }
    }

    /**
     * The transform length.
     *
     * @return n
     */
    int length() {
        return n;
    }

    /**
     * The length of each scratch array {@link #forward} needs.
     *
     * @return 0 for a power-of-two length, else the inner length
     */
    int scratchSize() {
        return inner == null ? 0 : inner.n;
    }

    /**
     * Replaces {@code (re, im)} by its transform {@code X[k] = sum_j x[j] exp(-2 pi i j k / n)}.
     *
     * @param re real parts, n long
     * @param im imaginary parts, n long
     * @param scratchRe scratch, {@link #scratchSize()} long (may be null when that is 0)
     * @param scratchIm scratch, {@link #scratchSize()} long (may be null when that is 0)
     */
    void forward(double[] re, double[] im, double[] scratchRe, double[] scratchIm) {
        if (inner == null) {
            radix2(re, im);
        } else {
            bluestein(re, im, scratchRe, scratchIm);
        }
    }

    /**
     * Replaces {@code (re, im)} by its inverse transform {@code x[j] = (1/n) sum_k X[k] exp(2 pi i j k / n)}.
     *
     * @param re real parts, n long
     * @param im imaginary parts, n long
     * @param scratchRe scratch, {@link #scratchSize()} long (may be null when that is 0)
     * @param scratchIm scratch, {@link #scratchSize()} long (may be null when that is 0)
     */
    void inverse(double[] re, double[] im, double[] scratchRe, double[] scratchIm) {
        for (int k = 0; k < n; k++) {
            im[k] = -im[k];
        }
        forward(re, im, scratchRe, scratchIm);
        double scale = 1.0 / n;
        for (int k = 0; k < n; k++) {
            re[k] *= scale;
            im[k] = -im[k] * scale;
        }
    }

    private void radix2(double[] re, double[] im) {
        for (int i = 0; i < n; i++) {
            int j = reverse[i];
            if (j > i) {
                double t = re[i];
                re[i] = re[j];
                re[j] = t;
                t = im[i];
                im[i] = im[j];
                im[j] = t;
            }
        }
        for (int len = 2; len <= n; len <<= 1) {
            int half = len >> 1;
            int step = n / len;
            for (int start = 0; start < n; start += len) {
                for (int j = 0; j < half; j++) {
                    double wr = cos[j * step];
                    double wi = -sin[j * step];
                    int a = start + j;
                    int b = a + half;
                    double vr = re[b] * wr - im[b] * wi;
                    double vi = re[b] * wi + im[b] * wr;
                    re[b] = re[a] - vr;
                    im[b] = im[a] - vi;
                    re[a] += vr;
                    im[a] += vi;
                }
            }
        }
    }

    private void bluestein(double[] re, double[] im, double[] aRe, double[] aIm) {
        int m = inner.n;
        for (int k = 0; k < n; k++) {
            aRe[k] = re[k] * chirpRe[k] - im[k] * chirpIm[k];
            aIm[k] = re[k] * chirpIm[k] + im[k] * chirpRe[k];
        }
        java.util.Arrays.fill(aRe, n, m, 0.0);
        java.util.Arrays.fill(aIm, n, m, 0.0);
        inner.forward(aRe, aIm, null, null);
        for (int k = 0; k < m; k++) {
            double r = aRe[k] * kernelRe[k] - aIm[k] * kernelIm[k];
            double i = aRe[k] * kernelIm[k] + aIm[k] * kernelRe[k];
            aRe[k] = r;
            aIm[k] = i;
        }
        inner.inverse(aRe, aIm, null, null);
        for (int k = 0; k < n; k++) {
            re[k] = aRe[k] * chirpRe[k] - aIm[k] * chirpIm[k];
            im[k] = aRe[k] * chirpIm[k] + aIm[k] * chirpRe[k];
        }
    }
}
