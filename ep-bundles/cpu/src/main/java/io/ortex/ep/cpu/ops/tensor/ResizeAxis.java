package io.ortex.ep.cpu.ops.tensor;

/**
 * The 1-D sampling of one axis of a Resize: for each output index, the input indices it reads (clamped to the
 * edge) and their weights, or a flag saying the position lies outside the crop box and takes the extrapolation
 * value. Built from the interpolation mode and the coordinate transformation, then applied to a tensor along that
 * axis. Immutable.
 */
final class ResizeAxis {
    /** The interpolation settings shared by all axes. */
    record Settings(String mode, String coordinateMode, String nearestMode, double cubicA, boolean excludeOutside,
            boolean antialias, double extrapolation) {
    }

    private final int inLen;
    private final int outLen;
    private final int taps;
    private final int[] index;
    private final double[] weight;
    private final boolean[] outside;

    private ResizeAxis(int inLen, int outLen, int taps) {
        this.inLen = inLen;
        this.outLen = outLen;
        this.taps = taps;
        this.index = new int[outLen * taps];
        this.weight = new double[outLen * taps];
        this.outside = new boolean[outLen];
    }

    /**
     * Computes the sampling of one axis.
     *
     * @param s the settings
     * @param inLen the input length
     * @param outLen the output length
     * @param scale the scale factor of the axis
     * @param roiStart the crop box start (tf_crop_and_resize), normalised
     * @param roiEnd the crop box end (tf_crop_and_resize), normalised
     * @return the sampling
     */
    static ResizeAxis build(Settings s, int inLen, int outLen, double scale, double roiStart, double roiEnd) {
        boolean nearest = s.mode().equals("nearest");
        boolean cubic = s.mode().equals("cubic");
        double aa = s.antialias() && !nearest ? Math.min(scale, 1.0) : 1.0;
        int start = nearest ? 0 : cubic ? (int) Math.floor(-2 / aa) + 1 : (int) Math.floor(-1 / aa) + 1;
        int taps = nearest ? 1 : 2 - 2 * start;
        ResizeAxis r = new ResizeAxis(inLen, outLen, taps);
        for (int o = 0; o < outLen; o++) {
            double x = original(s.coordinateMode(), o, scale, inLen, outLen, roiStart, roiEnd);
            int base = o * taps;
            if (s.coordinateMode().equals("tf_crop_and_resize") && (x < 0 || x > inLen - 1)) {
                r.outside[o] = true;
                continue;
            }
            if (nearest) {
                r.index[base] = clamp(nearestIndex(s.nearestMode(), x, scale), inLen);
                r.weight[base] = 1;
                continue;
            }
            double fl = Math.floor(x);
            int xi = (int) fl;
            double ratio = x - fl;
            if (ratio == 0) {
                ratio = 1;
                xi--;
            }
            double sum = 0;
            for (int t = 0; t < taps; t++) {
                int i = start + t;
                double arg = (i - ratio) * aa;
                double w = cubic ? cubicWeight(arg, s.cubicA()) : Math.max(0, 1 - Math.abs(arg));
                int idx = xi + i;
                if (s.excludeOutside() && (idx < 0 || idx >= inLen)) {
                    w = 0;
                }
                r.index[base + t] = clamp(idx, inLen);
                r.weight[base + t] = w;
                sum += w;
            }
            if (sum != 0 && sum != 1) {
                for (int t = 0; t < taps; t++) {
                    r.weight[base + t] /= sum;
                }
            }
        }
        return r;
    }

    private static int clamp(long i, int len) {
        return (int) Math.max(0, Math.min(len - 1, i));
    }

    static double original(String mode, int o, double scale, int inLen, int outLen, double roiStart,
            double roiEnd) {
        switch (mode) {
            case "half_pixel":
                return (o + 0.5) / scale - 0.5;
            case "half_pixel_symmetric": {
                double adjustment = outLen / (scale * inLen);
                double center = inLen / 2.0;
                double offset = center * (1 - adjustment);
                return offset + (o + 0.5) / scale - 0.5;
            }
            case "pytorch_half_pixel":
                return outLen > 1 ? (o + 0.5) / scale - 0.5 : 0;
            case "align_corners": {
                // the unrounded output length, as ONNX's reference computes it when scales are given
                double resized = scale * inLen;
                return resized == 1 ? 0 : o * (inLen - 1.0) / (resized - 1.0);
            }
            case "asymmetric":
                return o / scale;
            case "tf_half_pixel_for_nn":
                return (o + 0.5) / scale;
            case "tf_crop_and_resize":
                return outLen > 1 ? roiStart * (inLen - 1) + o * (roiEnd - roiStart) * (inLen - 1) / (outLen - 1.0)
                        : 0.5 * (roiStart + roiEnd) * (inLen - 1);
            default:
                throw new IllegalStateException(mode);
        }
    }

    private static long nearestIndex(String mode, double x, double scale) {
        double fl = Math.floor(x);
        switch (mode) {
            case "round_prefer_floor":
                return x - fl <= 0.5 ? (long) fl : (long) fl + 1;
            case "round_prefer_ceil":
                return x - fl < 0.5 ? (long) fl : (long) fl + 1;
            case "floor":
                return (long) fl;
            case "ceil":
                return (long) Math.ceil(x);
            default: // "simple": the rule of Upsample and Resize-10
                return scale < 1 ? (long) Math.ceil(x) : (long) x;
        }
    }

    private static double cubicWeight(double v, double a) {
        double x = Math.abs(v);
        if (x <= 1) {
            return ((a + 2) * x - (a + 3)) * x * x + 1;
        }
        if (x < 2) {
            return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a;
        }
        return 0;
    }

    /**
     * Resamples {@code src}, viewed as {@code [outer, inLen, inner]}, into {@code [outer, outLen, inner]}.
     *
     * @param src the source values
     * @param outer the product of the axes before this one
     * @param inner the product of the axes after this one
     * @param extrapolation the value for positions outside the crop box
     * @return the resampled values
     */
    double[] apply(double[] src, int outer, int inner, double extrapolation) {
        double[] dst = new double[outer * outLen * inner];
        for (int a = 0; a < outer; a++) {
            int sBase = a * inLen * inner;
            for (int o = 0; o < outLen; o++) {
                int d = (a * outLen + o) * inner;
                if (outside[o]) {
                    java.util.Arrays.fill(dst, d, d + inner, extrapolation);
                    continue;
                }
                for (int t = 0; t < taps; t++) {
                    double w = weight[o * taps + t];
                    if (w == 0) {
                        continue;
                    }
                    int s = sBase + index[o * taps + t] * inner;
                    for (int j = 0; j < inner; j++) {
                        dst[d + j] += w * src[s + j];
                    }
                }
            }
        }
        return dst;
    }
}
