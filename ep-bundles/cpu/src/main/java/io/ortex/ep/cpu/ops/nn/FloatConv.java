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
 * A float32 convolution with its weights prepared once, when the node (or the fused group) is compiled, and what
 * follows it folded in ({@link ChannelOps}). Three ways to compute it, chosen from the geometry:
 * <ul>
 * <li>depthwise ({@code group == C == M}, one or two spatial axes): {@link DepthwiseConv}, directly;</li>
 * <li>pointwise (a 1x1 kernel, unit strides, no padding): one matrix product per image and group, the weights as the
 * packed left operand and the input read in place as the right one;</li>
 * <li>other convolutions on one or two spatial axes: the same product over the zero-padded input split by stride
 * phase, each kernel tap a shifted view of one phase (nothing lowered);</li>
 * <li>three spatial axes: the same product over the input lowered block by block ({@link Im2col}) into scratch.</li>
 * </ul>
 * Products run in parallel over (image, group, block of output positions); each block's bias is added in the
 * product's epilogue and the activation and the remaining channel operations right after, row by row, while the
 * block is in cache. The output comes from the run's arena. Immutable and thread safe.
 */
public final class FloatConv {
    /** Bounds a block of output positions so that its lowered input or its output stays in the L2 cache. */
    private static final int BLOCK_FLOATS = 1 << 16;
    /** The widest block of output positions. */
    private static final int MAX_BLOCK = 1024;
    /** The most elements a padded copy of the input may have (beyond it, absurd pads take the lowered path). */
    private static final long MAX_SCRATCH = Integer.MAX_VALUE - 64;
    /** Multiply-adds below which a block is not worth handing to another thread. */
    private static final long CHUNK_WORK = 1L << 15;

    private final Window.Attrs attrs;
    private final int group;
    private final int cout;
    private final int cing;
    private final long[] kernel;
    private final int kernelSize;
    private final float[] weights;
    private final float[] bias;
    private final Activation activation;
    private final List<ChannelOps.Step> after;
    private final boolean depthwise;
    private final PackedA[] packed;
    private final Epilogue[] epilogues;

    private FloatConv(Window.Attrs attrs, int group, long[] wShape, float[] weights, float[] bias, ChannelOps ops) {
        this.attrs = attrs;
        this.group = group;
        this.cout = Math.toIntExact(wShape[0]);
        this.cing = Math.toIntExact(wShape[1]);
        this.kernel = Arrays.copyOfRange(wShape, 2, wShape.length);
        int kv = 1;
        for (long k : kernel) {
            kv = Math.multiplyExact(kv, Math.toIntExact(k));
        }
        this.kernelSize = kv;
        int perChannel = Math.multiplyExact(cing, kv);
        float[][] folded = ops.fold(weights, bias, cout, perChannel);
        this.weights = folded[0];
        this.bias = folded[1];
        List<ChannelOps.Step> rest = ops.fromFirstActivation();
        this.activation = rest.isEmpty() ? Activation.NONE : rest.get(0).activation();
        this.after = rest.isEmpty() ? List.of() : rest.subList(1, rest.size());
        this.depthwise = group > 1 && cing == 1 && cout == group && kernel.length <= 2
                && (attrs.strides() == null || attrs.strides().length != kernel.length
                || attrs.strides()[kernel.length - 1] <= DepthwiseConv.MAX_STRIDE);
        int coutg = cout / group;
        this.packed = new PackedA[depthwise ? 0 : group];
        this.epilogues = new Epilogue[group];
        for (int g = 0; g < group; g++) {
            if (!depthwise) {
                packed[g] = Gemm.packA(this.weights, g * coutg * perChannel, perChannel, 1, coutg, perChannel);
            }
            // the activation runs over whole rows of a block afterwards: per tile it would cost a call per few values
            epilogues[g] = Epilogue.rowBias(this.bias, g * coutg, Activation.NONE);
        }
    }

    /**
     * Prepares a convolution.
     *
     * @param attrs the window attributes
     * @param group the group count
     * @param wShape the weights' shape {@code (M, C / group, k1, ...)}
     * @param weights the weights
     * @param bias the bias, {@code M} values, or {@code null}
     * @param ops what follows the convolution, channel by channel
     * @return the prepared convolution
     * @throws InvalidArgumentException when the shapes do not fit together
     */
    public static FloatConv create(Window.Attrs attrs, int group, long[] wShape, float[] weights, float[] bias,
            ChannelOps ops) {
        if (wShape.length < 3) {
            throw new InvalidArgumentException("Conv weights W [" + Tensor.shapeString(wShape)
                    + "] must have at least 3 dimensions");
        }
        if (group < 1 || wShape[0] % group != 0) {
            throw new InvalidArgumentException("Conv output channels " + wShape[0] + " are not a multiple of group "
                    + group);
        }
        if (attrs.kernel() != null && !Arrays.equals(attrs.kernel(), Arrays.copyOfRange(wShape, 2, wShape.length))) {
            throw new InvalidArgumentException("Conv attribute kernel_shape " + Arrays.toString(attrs.kernel())
                    + " differs from the weights' spatial shape "
                    + Arrays.toString(Arrays.copyOfRange(wShape, 2, wShape.length)));
        }
        if (bias != null && bias.length != wShape[0]) {
            throw new InvalidArgumentException("Conv bias B has " + bias.length + " elements, expected " + wShape[0]);
        }
        ops.check((int) wShape[0]);
        return new FloatConv(attrs, group, wShape, weights, bias, ops);
    }

    /**
     * Computes the convolution of a float32 input.
     *
     * @param x the input {@code (N, C, D1, ...)}
     * @param ctx the run's context: threads, and the arena the output and scratch come from
     * @return the output {@code (N, M, O1, ...)}
     * @throws InvalidArgumentException when the input does not fit the weights
     */
    public Tensor run(Tensor x, KernelContext ctx) {
        if (x.rank() != kernel.length + 2) {
            throw new InvalidArgumentException("Conv input X [" + Tensor.shapeString(x.shape()) + "] must have rank "
                    + (kernel.length + 2) + " to match the weights");
        }
        int n = Math.toIntExact(x.dim(0));
        int c = Math.toIntExact(x.dim(1));
        if (c != cing * group) {
            throw new InvalidArgumentException("Conv channels do not match: X has " + c + ", W has " + cing
                    + " per group, group " + group);
        }
        Window g = Window.resolve(attrs, Arrays.copyOfRange(x.shape(), 2, x.rank()), kernel);
        long[] outShape = new long[x.rank()];
        outShape[0] = n;
        outShape[1] = cout;
        System.arraycopy(g.outShape, 0, outShape, 2, kernel.length);
        Tensor out = ctx.allocateUninitialized(ElementType.FLOAT, outShape);
        if (out.size() == 0) {
            return out;
        }
        float[] y = out.floats();
        if (depthwise) {
            DepthwiseConv.run(x.floats(), n, c, g, weights, bias, activation, after, y, ctx);
        } else {
            product(x.floats(), n, c, g, y, ctx);
        }
        return out;
    }

    /** The convolution as matrix products, one per (image, group, block of output positions). */
    private void product(float[] x, int n, int c, Window g, float[] y, KernelContext ctx) {
        int pOut = g.outSize();
        int pIn = g.inSize();
        int coutg = cout / group;
        int k = cing * kernelSize;
        boolean pointwise = kernelSize == 1 && pIn == pOut && unitStridesNoPads(g);
        long padded = (long) n * c * g.s[1] * g.s[2]
                * ((g.in[1] + g.pb[1] + g.pe[1] + g.s[1] - 1) / g.s[1])
                * ((g.in[2] + g.pb[2] + g.pe[2] + g.s[2] - 1) / g.s[2]);
        // a third spatial axis of one input, one tap and one output that reads it (no padding before it) is a plane
        if (!pointwise && g.k[0] == 1 && g.in[0] == 1 && g.out[0] == 1 && g.pb[0] == 0 && padded <= MAX_SCRATCH) {
            shifted(x, n, c, g, y, ctx);
            return;
        }
        int align = Gemm.columnAlignment();
        int threads = Math.max(1, ctx.intraOpThreads());
        int maxBlock = BLOCK_FLOATS / Math.max(1, pointwise ? coutg : k);
        maxBlock = Math.max(align, Math.min(MAX_BLOCK, maxBlock / align * align));
        int blocks = (pOut + maxBlock - 1) / maxBlock;
        int images = n * group;
        if (threads > 1 && images % threads != 0) {
            // enough blocks for the threads to share the units evenly
            int want = (threads * 4 + images - 1) / images;
            blocks = Math.max(blocks, Math.min(want, (pOut + align - 1) / align));
        }
        int block = ((pOut + blocks - 1) / blocks + align - 1) / align * align;
        int blockCount = (pOut + block - 1) / block;
        int units = images * blockCount;
        long unitWork = (long) coutg * k * block;
        int minChunk = (int) Math.max(1, Math.min(units, CHUNK_WORK / Math.max(1, unitWork)));
        ctx.parallelFor(units, minChunk, (from, to) -> {
            float[] cols = pointwise ? null
                    : ctx.allocateUninitialized(ElementType.FLOAT, (long) k * block).floats();
            for (int u = from; u < to; u++) {
                int bi = u % blockCount;
                int gi = (u / blockCount) % group;
                int ni = u / (blockCount * group);
                int j0 = bi * block;
                int w = Math.min(block, pOut - j0);
                int xOff = (ni * c + gi * cing) * pIn;
                int yOff = (ni * cout + gi * coutg) * pOut;
                if (pointwise) {
                    Gemm.multiply(packed[gi], PanelSource.matrix(x, xOff, pIn), j0, w, y, yOff + j0, pOut,
                            epilogues[gi], null);
                } else {
                    Im2col.gather(x, xOff, cing, g, j0, w, cols, 0, w);
                    Gemm.multiply(packed[gi], PanelSource.matrix(cols, 0, w), 0, w, y, yOff + j0, pOut,
                            epilogues[gi], null);
                }
                for (int co = 0; co < coutg; co++) {
                    finish(y, yOff + co * pOut + j0, w, gi * coutg + co);
                }
            }
        });
    }

    /**
     * A convolution on one or two spatial axes without lowering its input. The input is padded with zeros to
     * {@code hp x wp} (a copy, unless there is no padding and the strides are 1) and split by stride phase: padded
     * row {@code r}, column {@code q} goes to phase {@code (r % sh, q % sw)}, row {@code r / sh}, column
     * {@code q / sw} of a {@code hpp x wpp} plane. Output {@code (oh, ow)} is then column {@code oh * wpp + ow} of a
     * product whose right operand's row {@code (ci, tap)} is a run of one phase plane of channel {@code ci}, shifted
     * by the tap's offset. The products run over blocks of whole output rows; the {@code wpp - ow} columns between
     * rows are computed and dropped.
     */
    private void shifted(float[] x, int n, int c, Window g, float[] y, KernelContext ctx) {
        int h = g.in[1];
        int w = g.in[2];
        int sh = g.s[1];
        int sw = g.s[2];
        int hp = h + g.pb[1] + g.pe[1];
        int wp = w + g.pb[2] + g.pe[2];
        int hpp = (hp + sh - 1) / sh;
        int wpp = (wp + sw - 1) / sw;
        int oh = g.out[1];
        int ow = g.out[2];
        int pOut = oh * ow;
        int coutg = cout / group;
        int phasePlane = hpp * wpp;
        int plane = sh * sw * phasePlane;
        int top = g.pb[1];
        int left = g.pb[2];
        float[] src = x;
        if (sh != 1 || sw != 1 || hp != h || wp != w) {
            src = ctx.allocateUninitialized(ElementType.FLOAT, (long) n * c * plane).floats();
            float[] padded = src;
            ctx.parallelFor(n * c, Math.max(1, 8192 / plane), (from, to) -> {
                for (int p = from; p < to; p++) {
                    int d = p * plane;
                    if (sh == 1 && sw == 1) {
                        Arrays.fill(padded, d, d + top * wp, 0f);
                        for (int r = 0; r < h; r++) {
                            int row = d + (top + r) * wp;
                            // the side padding is a column or two: a loop, not a call
                            for (int q = row; q < row + left; q++) {
                                padded[q] = 0f;
                            }
                            System.arraycopy(x, p * h * w + r * w, padded, row + left, w);
                            for (int q = row + left + w; q < row + wp; q++) {
                                padded[q] = 0f;
                            }
                        }
                        Arrays.fill(padded, d + (top + h) * wp, d + plane, 0f);
                        continue;
                    }
                    Arrays.fill(padded, d, d + plane, 0f);
                    for (int r = 0; r < h; r++) {
                        int pr = top + r;
                        int xs = p * h * w + r * w;
                        for (int f = 0; f < sw; f++) {
                            int dst = d + ((pr % sh * sw + f) * hpp + pr / sh) * wpp;
                            // the input columns j whose padded column j + left is in phase f
                            int j = Math.floorMod(f - left, sw);
                            for (int q = (j + left) / sw; j < w; j += sw, q++) {
                                padded[dst + q] = x[xs + j];
                            }
                        }
                    }
                }
            });
        }
        int[] rowStarts = new int[cing * kernelSize];
        for (int r = 0; r < rowStarts.length; r++) {
            int tap = r % kernelSize;
            int dh = (tap / g.k[2]) * g.d[1];
            int dw = (tap % g.k[2]) * g.d[2];
            rowStarts[r] = (r / kernelSize) * plane + (dh % sh * sw + dw % sw) * phasePlane + dh / sh * wpp + dw / sw;
        }
        boolean direct = wpp == ow;
        int threads = Math.max(1, ctx.intraOpThreads());
        int rows = Math.max(1, Math.min(MAX_BLOCK, BLOCK_FLOATS / Math.max(1, coutg)) / wpp);
        if (threads > 1) {
            // a few units per thread, but each at least one panel of the product wide: a unit narrower than a
            // panel computes the whole panel anyway
            int panelRows = (Gemm.columnAlignment() + wpp - 1) / wpp;
            rows = Math.min(rows, Math.max(panelRows, (oh * n * group + threads * 4 - 1) / (threads * 4)));
        }
        int rowsPer = Math.min(rows, oh);
        int blocks = (oh + rowsPer - 1) / rowsPer;
        int units = n * group * blocks;
        long unitWork = (long) coutg * rowStarts.length * rowsPer * wpp;
        int minChunk = (int) Math.max(1, Math.min(units, CHUNK_WORK / Math.max(1, unitWork)));
        float[] in = src;
        ctx.parallelFor(units, minChunk, (from, to) -> {
            float[] cbuf = direct ? null
                    : ctx.allocateUninitialized(ElementType.FLOAT, (long) coutg * rowsPer * wpp).floats();
            for (int u = from; u < to; u++) {
                int bi = u % blocks;
                int gi = (u / blocks) % group;
                int ni = u / (blocks * group);
                int r0 = bi * rowsPer;
                int r1 = Math.min(oh, r0 + rowsPer);
                int cols = (r1 - r0 - 1) * wpp + ow;
                int yOff = (ni * cout + gi * coutg) * pOut;
                PanelSource b = PanelSource.rows(in, (ni * c + gi * cing) * plane, rowStarts);
                if (direct) {
                    Gemm.multiply(packed[gi], b, r0 * wpp, cols, y, yOff + r0 * ow, pOut, epilogues[gi], null);
                } else {
                    Gemm.multiply(packed[gi], b, r0 * wpp, cols, cbuf, 0, cols, epilogues[gi], null);
                    for (int co = 0; co < coutg; co++) {
                        for (int r = r0; r < r1; r++) {
                            System.arraycopy(cbuf, co * cols + (r - r0) * wpp, y, yOff + co * pOut + r * ow, ow);
                        }
                    }
                }
                for (int co = 0; co < coutg; co++) {
                    finish(y, yOff + co * pOut + r0 * ow, (r1 - r0) * ow, gi * coutg + co);
                }
            }
        });
    }

    /** Applies the activation and the channel operations after it to a run of one output channel. */
    private void finish(float[] y, int off, int len, int channel) {
        activation.apply(y, off, len);
        ChannelOps.apply(after, y, off, len, channel);
    }

    private static boolean unitStridesNoPads(Window g) {
        for (int i = 0; i < 3; i++) {
            if (g.s[i] != 1 || g.pb[i] != 0 || g.pe[i] != 0) {
                return false;
            }
        }
        return true;
    }
}
