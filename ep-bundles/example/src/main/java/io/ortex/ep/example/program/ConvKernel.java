package io.ortex.ep.example.program;

import io.ortex.api.InvalidArgumentException;
import io.ortex.api.Tensor;
import io.ortex.api.spi.KernelContext;

/**
 * ONNX {@code Conv} on float32 data with one or two spatial axes, channels first (NCHW, the ONNX op) or channels last
 * (NHWC, the op of the NHWC domain the runtime converts Conv nodes to), by tiled im2col: for a tile of output
 * positions it gathers the input patches into rows of {@code K = C/group * kh * kw} values and takes the dot product
 * of each with every filter row of the weight matrix {@code [M, K]}. The compiler packs constant weights into that
 * matrix; a weight given at run time as {@code [M, C/group, (kh,) kw]} has the same elements and is read as is. The
 * layout changes only where the patches are gathered from and where the results go: the weight keeps ONNX's
 * {@code [M, C/group, kh, kw]} order in both. Stateless.
 */
final class ConvKernel {
    /** Output positions gathered per tile; bounds the patch buffer to {@code TILE * K} floats. */
    private static final int TILE = 64;

    private ConvKernel() {
    }

    /**
     * Convolves.
     *
     * @param x the input, {@code [N, C, (H,) W]}, or {@code [N, (H,) W, C]} when {@code channelsLast}
     * @param w the weight, packed {@code [M, K]} or as in ONNX
     * @param bias the bias {@code [M]}, or {@code null}
     * @param attributes the convolution's geometry
     * @param channelsLast whether the input and output hold their channels last
     * @param context the run's context, for its threads
     * @return the output, {@code [N, M, (OH,) OW]}, or {@code [N, (OH,) OW, M]} when {@code channelsLast}
     */
    static Tensor run(Tensor x, Tensor w, Tensor bias, ConvAttributes attributes, boolean channelsLast,
                      KernelContext context) {
        Geometry g = Geometry.of(x, w, attributes, channelsLast);
        if (bias != null && (bias.rank() != 1 || bias.dim(0) != g.m)) {
            throw new InvalidArgumentException("Conv: bias B must be [" + g.m + "], got "
                    + Tensor.shapeString(bias.shape()));
        }
        float[] xv = x.floats();
        float[] wv = w.floats();
        float[] bv = bias == null ? null : bias.floats();
        int positions = g.oh * g.ow;
        int tilesPerImage = (positions + TILE - 1) / TILE;
        float[] out = new float[Math.multiplyExact(Math.multiplyExact(g.n, g.m), positions)];
        int tiles = g.n * g.groups * tilesPerImage;
        context.parallelFor(tiles, MatrixMath.minChunk((long) TILE * g.k * g.m / g.groups),
                (from, to) -> {
                    float[] patches = new float[TILE * g.k];
                    for (int t = from; t < to; t++) {
                        int tile = t % tilesPerImage;
                        int group = (t / tilesPerImage) % g.groups;
                        int image = t / tilesPerImage / g.groups;
                        int p0 = tile * TILE;
                        int p1 = Math.min(positions, p0 + TILE);
                        gather(xv, g, image, group, p0, p1, patches);
                        multiply(wv, bv, g, image, group, p0, p1, patches, out);
                    }
                });
        long[] shape;
        if (channelsLast) {
            shape = attributes.spatialRank() == 1 ? new long[] {g.n, g.ow, g.m} : new long[] {g.n, g.oh, g.ow, g.m};
        } else {
            shape = attributes.spatialRank() == 1 ? new long[] {g.n, g.m, g.ow} : new long[] {g.n, g.m, g.oh, g.ow};
        }
        return Tensor.ofFloats(out, shape);
    }

    /** Copies the input patch of each output position in {@code [p0, p1)} into a row of {@code patches}. */
    private static void gather(float[] x, Geometry g, int image, int group, int p0, int p1, float[] patches) {
        int channels = g.c / g.groups;
        for (int p = p0; p < p1; p++) {
            int oy = p / g.ow;
            int ox = p % g.ow;
            int row = (p - p0) * g.k;
            int col = 0;
            for (int c = 0; c < channels; c++) {
                int channel = group * channels + c;
                int plane = ((image * g.c) + channel) * g.h;
                for (int i = 0; i < g.kh; i++) {
                    int iy = oy * g.sh - g.padTop + i * g.dh;
                    boolean rowInside = iy >= 0 && iy < g.h;
                    for (int j = 0; j < g.kw; j++) {
                        int ix = ox * g.sw - g.padLeft + j * g.dw;
                        boolean inside = rowInside && ix >= 0 && ix < g.w;
                        int at = g.channelsLast ? ((image * g.h + iy) * g.w + ix) * g.c + channel
                                : (plane + iy) * g.w + ix;
                        patches[row + col++] = inside ? x[at] : 0f;
                    }
                }
            }
        }
    }

    /** Computes the outputs of every filter of {@code group} at positions {@code [p0, p1)}. */
    private static void multiply(float[] w, float[] bias, Geometry g, int image, int group, int p0, int p1,
                                 float[] patches, float[] out) {
        int filters = g.m / g.groups;
        int positions = g.oh * g.ow;
        for (int f = 0; f < filters; f++) {
            int filter = group * filters + f;
            float b = bias == null ? 0f : bias[filter];
            for (int p = p0; p < p1; p++) {
                int at = g.channelsLast ? (image * positions + p) * g.m + filter
                        : (image * g.m + filter) * positions + p;
                out[at] = MatrixMath.dot(w, filter * g.k, patches, (p - p0) * g.k, g.k) + b;
            }
        }
    }

    /** The sizes of one convolution, checked against each other; a 1-D convolution has {@code h = kh = 1}. */
    private record Geometry(int n, int c, int h, int w, int m, int groups, int k, int kh, int kw, int oh, int ow,
                            int sh, int sw, int dh, int dw, int padTop, int padLeft, boolean channelsLast) {
        static Geometry of(Tensor x, Tensor weight, ConvAttributes a, boolean channelsLast) {
            int spatial = a.spatialRank();
            if (x.rank() != spatial + 2) {
                throw new InvalidArgumentException("Conv: input X must have rank " + (spatial + 2) + ", got "
                        + Tensor.shapeString(x.shape()));
            }
            int first = channelsLast ? 1 : 2;
            int n = (int) x.dim(0);
            int c = (int) x.dim(channelsLast ? spatial + 1 : 1);
            int h = spatial == 1 ? 1 : (int) x.dim(first);
            int w = (int) x.dim(first + spatial - 1);
            int[] kernel = a.kernel();
            int m = (int) weight.dim(0);
            int k;
            if (weight.rank() == 2) {
                k = (int) weight.dim(1);
            } else if (weight.rank() == spatial + 2) {
                int kh = spatial == 1 ? 1 : (int) weight.dim(2);
                int kw = (int) weight.dim(spatial + 1);
                if (kh != kernel[0] || kw != kernel[1]) {
                    throw new InvalidArgumentException("Conv: weight W of shape " + Tensor.shapeString(weight.shape())
                            + " does not match kernel_shape");
                }
                k = (int) weight.dim(1) * kh * kw;
            } else {
                throw new InvalidArgumentException("Conv: weight W must have rank " + (spatial + 2) + ", got "
                        + Tensor.shapeString(weight.shape()));
            }
            int group = a.group();
            if (c % group != 0 || m % group != 0 || k != c / group * kernel[0] * kernel[1]) {
                throw new InvalidArgumentException("Conv: " + c + " input channels, " + m + " filters and group "
                        + group + " do not fit weight W of shape " + Tensor.shapeString(weight.shape()));
            }
            int[] s = a.strides();
            int[] d = a.dilations();
            int[] p = a.pads();
            int oh = (h + p[0] + p[2] - ((kernel[0] - 1) * d[0] + 1)) / s[0] + 1;
            int ow = (w + p[1] + p[3] - ((kernel[1] - 1) * d[1] + 1)) / s[1] + 1;
            if (h + p[0] + p[2] < (kernel[0] - 1) * d[0] + 1 || w + p[1] + p[3] < (kernel[1] - 1) * d[1] + 1) {
                throw new InvalidArgumentException("Conv: the dilated kernel is larger than the padded input "
                        + Tensor.shapeString(x.shape()));
            }
            return new Geometry(n, c, h, w, m, group, k, kernel[0], kernel[1], oh, ow, s[0], s[1], d[0], d[1], p[0],
                    p[1], channelsLast);
        }
    }
}
