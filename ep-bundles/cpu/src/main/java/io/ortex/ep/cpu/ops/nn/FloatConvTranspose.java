package io.ortex.ep.cpu.ops.nn;

import io.ortex.api.ElementType;
import io.ortex.api.InvalidArgumentException;
import io.ortex.api.Tensor;
import io.ortex.api.spi.KernelContext;
import io.ortex.ep.cpu.linalg.Activation;
import io.ortex.ep.cpu.linalg.Epilogue;
import io.ortex.ep.cpu.linalg.Gemm;
import io.ortex.ep.cpu.linalg.PackedA;
import io.ortex.ep.cpu.linalg.PanelSource;
import java.util.Arrays;
import java.util.List;

/**
 * A float32 transposed convolution with its weights prepared once and what follows it folded in ({@link
 * ChannelOps}). Each group's weights, transposed to one row per (output channel, kernel tap), are the packed left
 * operand of a product with a block of input positions read in place; the block's columns are then scattered into
 * the output (col2im).
 * <ul>
 * <li>When each stride spans its kernel (the 2x2 stride-2 upsampling of detection heads), no two input positions
 * reach the same output: blocks of input positions run in parallel, the bias is added in the product's epilogue and
 * the activation and the rest applied to each row of columns, and the scatter is a copy.</li>
 * <li>Otherwise the output channels are split into chunks that run in parallel, each accumulating every block of
 * input positions into its own planes before the activation.</li>
 * </ul>
 * The output comes from the run's arena. Immutable and thread safe.
 */
public final class FloatConvTranspose {
    /** Bounds a block of input positions so that its columns stay in the L2 cache. */
    private static final int BLOCK_FLOATS = 1 << 16;
    /** The widest block of input positions. */
    private static final int MAX_BLOCK = 1024;
    /** Rows of the transposed weights (channels times taps) per chunk when the taps overlap. */
    private static final int CHUNK_ROWS = 96;

    private final TransposeWindow.Attrs attrs;
    private final int group;
    private final int cin;
    private final int coutg;
    private final long[] kernel;
    private final int kv;
    private final boolean disjoint;
    private final int chunkChannels;
    /** Per group, per chunk of output channels. */
    private final PackedA[][] packed;
    private final float[] bias;
    private final Activation activation;
    private final List<ChannelOps.Step> after;
    /** Per group: the bias of each (channel, tap) row, and the epilogue adding it (disjoint taps only). */
    private final Epilogue[] rowEpilogues;

    private FloatConvTranspose(TransposeWindow.Attrs attrs, long[] wShape, float[] w, float[] b, ChannelOps ops) {
        this.attrs = attrs;
        this.group = attrs.group();
        this.cin = Math.toIntExact(wShape[0]);
        this.coutg = Math.toIntExact(wShape[1]);
        this.kernel = Arrays.copyOfRange(wShape, 2, wShape.length);
        int taps = 1;
        for (long k : kernel) {
            taps = Math.multiplyExact(taps, Math.toIntExact(k));
        }
        this.kv = taps;
        int cing = cin / group;
        int cout = coutg * group;
        // one row per (output channel, tap): at[((g * coutg + co) * kv + kp) * cing + ci] = w[g * cing + ci][co][kp]
        float[] at = new float[w.length];
        for (int g = 0; g < group; g++) {
            for (int ci = 0; ci < cing; ci++) {
                for (int row = 0; row < coutg * kv; row++) {
                    at[(g * coutg * kv + row) * cing + ci] = w[(g * cing + ci) * coutg * kv + row];
                }
            }
        }
        float[][] folded = ops.fold(at, b, cout, kv * cing);
        this.bias = folded[1];
        List<ChannelOps.Step> rest = ops.fromFirstActivation();
        this.activation = rest.isEmpty() ? Activation.NONE : rest.get(0).activation();
        this.after = rest.isEmpty() ? List.of() : rest.subList(1, rest.size());
        boolean spans = true;
        for (int i = 0; i < kernel.length; i++) {
            long s = attrs.strides() == null ? 1 : attrs.strides()[i];
            long d = attrs.dilations() == null ? 1 : attrs.dilations()[i];
            spans &= s >= (kernel[i] - 1) * d + 1;
        }
        this.disjoint = spans;
        this.chunkChannels = disjoint ? Math.max(1, coutg) : Math.max(1, Math.min(coutg, CHUNK_ROWS / kv));
        int chunks = coutg == 0 ? 0 : (coutg + chunkChannels - 1) / chunkChannels;
        this.packed = new PackedA[group][chunks];
        this.rowEpilogues = new Epilogue[group];
        for (int g = 0; g < group; g++) {
            for (int c = 0; c < chunks; c++) {
                int co0 = c * chunkChannels;
                int co1 = Math.min(coutg, co0 + chunkChannels);
                packed[g][c] = Gemm.packA(folded[0], ((g * coutg + co0) * kv) * cing, cing, 1, (co1 - co0) * kv,
                        cing);
            }
            float[] rowBias = null;
            if (bias != null) {
                rowBias = new float[coutg * kv];
                for (int r = 0; r < rowBias.length; r++) {
                    rowBias[r] = bias[g * coutg + r / kv];
                }
            }
            rowEpilogues[g] = Epilogue.rowBias(rowBias, 0, Activation.NONE);
        }
    }

    /**
     * Prepares a transposed convolution.
     *
     * @param attrs the attributes
     * @param wShape the weights' shape {@code (C, M / group, k1, ...)}
     * @param weights the weights
     * @param bias the bias, {@code M} values, or {@code null}
     * @param ops what follows, channel by channel
     * @return the prepared convolution
     * @throws InvalidArgumentException when the shapes do not fit together
     */
    public static FloatConvTranspose create(TransposeWindow.Attrs attrs, long[] wShape, float[] weights, float[] bias,
            ChannelOps ops) {
        if (wShape.length < 3) {
            throw new InvalidArgumentException("ConvTranspose weights W [" + Tensor.shapeString(wShape)
                    + "] must have at least 3 dimensions");
        }
        if (wShape[0] % attrs.group() != 0) {
            throw new InvalidArgumentException("ConvTranspose input channels " + wShape[0]
                    + " are not a multiple of group " + attrs.group());
        }
        long cout = wShape[1] * attrs.group();
        if (bias != null && bias.length != cout) {
            throw new InvalidArgumentException("ConvTranspose bias B has " + bias.length + " elements, expected "
                    + cout);
        }
        ops.check((int) cout);
        return new FloatConvTranspose(attrs, wShape, weights, bias, ops);
    }

    /**
     * Computes the transposed convolution of a float32 input.
     *
     * @param x the input {@code (N, C, D1, ...)}
     * @param ctx the run's context: threads, and the arena the output and scratch come from
     * @return the output {@code (N, M, O1, ...)}
     * @throws InvalidArgumentException when the input does not fit the weights
     */
    public Tensor run(Tensor x, KernelContext ctx) {
        if (x.rank() != kernel.length + 2) {
            throw new InvalidArgumentException("ConvTranspose input X [" + Tensor.shapeString(x.shape())
                    + "] must have rank " + (kernel.length + 2) + " to match the weights");
        }
        if (x.dim(1) != cin) {
            throw new InvalidArgumentException("ConvTranspose channels do not match: X has " + x.dim(1)
                    + ", W has " + cin + ", group " + group);
        }
        TransposeWindow g = TransposeWindow.resolve(attrs, Arrays.copyOfRange(x.shape(), 2, x.rank()), kernel);
        int n = Math.toIntExact(x.dim(0));
        int cout = coutg * group;
        long[] outShape = new long[x.rank()];
        outShape[0] = n;
        outShape[1] = cout;
        System.arraycopy(g.outShape, 0, outShape, 2, kernel.length);
        Tensor out = ctx.allocateUninitialized(ElementType.FLOAT, outShape);
        if (out.size() == 0) {
            return out;
        }
        float[] y = out.floats();
        if (g.inSize() == 0 || cin / group == 0) {
            fillBias(y, n, g.outSize(), ctx);
        } else if (disjoint) {
            disjoint(x.floats(), n, g, y, ctx);
        } else {
            overlapping(x.floats(), n, g, y, ctx);
        }
        return out;
    }

    /** Sets every output to what the bias alone gives (through the activation and the channel operations). */
    private void fillBias(float[] y, int n, int pOut, KernelContext ctx) {
        int cout = coutg * group;
        ctx.parallelFor(n * cout, Math.max(1, 4096 / pOut), (from, to) -> {
            for (int p = from; p < to; p++) {
                int co = p % cout;
                Arrays.fill(y, p * pOut, (p + 1) * pOut, bias == null ? 0f : bias[co]);
                activation.apply(y, p * pOut, pOut);
                ChannelOps.apply(after, y, p * pOut, pOut, co);
            }
        });
    }

    /** Taps that never overlap: blocks of input positions in parallel, each scattered by copying. */
    private void disjoint(float[] x, int n, TransposeWindow g, float[] y, KernelContext ctx) {
        if (!g.exactCover()) {
            fillBias(y, n, g.outSize(), ctx);
        }
        int pIn = g.inSize();
        int cing = cin / group;
        int m = coutg * kv;
        int block = block(pIn, n * group, m, ctx);
        int blocks = (pIn + block - 1) / block;
        ctx.parallelFor(n * group * blocks, 1, (from, to) -> {
            float[] cols = ctx.allocateUninitialized(ElementType.FLOAT, (long) m * block).floats();
            for (int u = from; u < to; u++) {
                int bi = u % blocks;
                int gi = (u / blocks) % group;
                int ni = u / (blocks * group);
                int j0 = bi * block;
                int w = Math.min(block, pIn - j0);
                Gemm.multiply(packed[gi][0], PanelSource.matrix(x, (ni * cin + gi * cing) * pIn, pIn), j0, w, cols,
                        0, w, rowEpilogues[gi], null);
                for (int row = 0; row < m; row++) {
                    int co = row / kv;
                    activation.apply(cols, row * w, w);
                    ChannelOps.apply(after, cols, row * w, w, gi * coutg + co);
                    int yOff = (ni * coutg * group + gi * coutg + co) * g.outSize();
                    scatter(cols, row * w, w, j0, row % kv, g, y, yOff, false);
                }
            }
        });
    }

    /** Overlapping taps: chunks of output channels in parallel, each accumulating every block into its planes. */
    private void overlapping(float[] x, int n, TransposeWindow g, float[] y, KernelContext ctx) {
        int pIn = g.inSize();
        int pOut = g.outSize();
        int cing = cin / group;
        int chunks = packed[0].length;
        int block = Math.max(Gemm.columnAlignment(), Math.min(MAX_BLOCK, BLOCK_FLOATS / Math.max(1,
                chunkChannels * kv)));
        ctx.parallelFor(n * group * chunks, 1, (from, to) -> {
            float[] cols = ctx.allocateUninitialized(ElementType.FLOAT, (long) chunkChannels * kv * block).floats();
            for (int u = from; u < to; u++) {
                int ci = u % chunks;
                int gi = (u / chunks) % group;
                int ni = u / (chunks * group);
                int co0 = ci * chunkChannels;
                int co1 = Math.min(coutg, co0 + chunkChannels);
                int plane0 = (ni * coutg * group + gi * coutg) * pOut;
                for (int co = co0; co < co1; co++) {
                    Arrays.fill(y, plane0 + co * pOut, plane0 + (co + 1) * pOut,
                            bias == null ? 0f : bias[gi * coutg + co]);
                }
                for (int j0 = 0; j0 < pIn; j0 += block) {
                    int w = Math.min(block, pIn - j0);
                    Gemm.multiply(packed[gi][ci], PanelSource.matrix(x, (ni * cin + gi * cing) * pIn, pIn), j0, w,
                            cols, 0, w, Epilogue.NONE, null);
                    for (int row = 0; row < (co1 - co0) * kv; row++) {
                        int co = co0 + row / kv;
                        scatter(cols, row * w, w, j0, row % kv, g, y, plane0 + co * pOut, true);
                    }
                }
                for (int co = co0; co < co1; co++) {
                    activation.apply(y, plane0 + co * pOut, pOut);
                    ChannelOps.apply(after, y, plane0 + co * pOut, pOut, gi * coutg + co);
                }
            }
        });
    }

    /** Input positions per block: the cache bound, and enough blocks for the threads. */
    private static int block(int pIn, int images, int rows, KernelContext ctx) {
        int align = Gemm.columnAlignment();
        int max = Math.max(align, Math.min(MAX_BLOCK, BLOCK_FLOATS / Math.max(1, rows)) / align * align);
        int blocks = (pIn + max - 1) / max;
        int threads = Math.max(1, ctx.intraOpThreads());
        if (threads > 1 && images % threads != 0) {
            blocks = Math.max(blocks, Math.min((threads * 4 + images - 1) / images, (pIn + align - 1) / align));
        }
        return ((pIn + blocks - 1) / blocks + align - 1) / align * align;
    }

    /**
     * Writes (or adds) one row of columns, the values one kernel tap takes from input positions
     * {@code [p0, p0 + w)}, into its output plane.
     */
    private static void scatter(float[] cols, int cOff, int w, int p0, int tap, TransposeWindow g, float[] y,
            int yOff, boolean add) {
        int kw = tap % g.k[2];
        int kh = (tap / g.k[2]) % g.k[1];
        int kd = tap / (g.k[2] * g.k[1]);
        int in2 = g.in[2];
        int j = 0;
        int pos = p0;
        while (j < w) {
            int iw = pos % in2;
            int rest = pos / in2;
            int ih = rest % g.in[1];
            int id = rest / g.in[1];
            int len = Math.min(w - j, in2 - iw);
            int od = id * g.s[0] - g.pb[0] + kd * g.d[0];
            int oh = ih * g.s[1] - g.pb[1] + kh * g.d[1];
            if (od >= 0 && od < g.out[0] && oh >= 0 && oh < g.out[1]) {
                int row = yOff + (od * g.out[1] + oh) * g.out[2];
                int s2 = g.s[2];
                int shift = kw * g.d[2] - g.pb[2];
                // the input columns whose output column falls inside the plane
                int lo = Math.max(iw, shift >= 0 ? 0 : (-shift + s2 - 1) / s2);
                int hi = Math.min(iw + len, g.out[2] - shift <= 0 ? 0 : (g.out[2] - shift + s2 - 1) / s2);
                int src = cOff + j - iw;
                if (add) {
                    for (int c = lo; c < hi; c++) {
                        y[row + c * s2 + shift] += cols[src + c];
                    }
                } else {
                    for (int c = lo; c < hi; c++) {
                        y[row + c * s2 + shift] = cols[src + c];
                    }
                }
            }
            j += len;
            pos += len;
        }
    }
}
