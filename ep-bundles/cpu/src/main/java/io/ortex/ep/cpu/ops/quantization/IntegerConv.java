package io.ortex.ep.cpu.ops.quantization;

import io.ortex.api.ElementType;
import io.ortex.api.InvalidArgumentException;
import io.ortex.api.Tensor;
import io.ortex.api.spi.KernelContext;
import io.ortex.ep.cpu.ops.nn.ChannelOps;
import io.ortex.ep.cpu.ops.nn.FloatConv;
import io.ortex.ep.cpu.ops.nn.Window;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The 8-bit integer convolution {@code conv(X - x_zero_point, W - w_zero_point)} into int32, exactly, on the float32
 * convolution ({@link FloatConv}: depthwise directly, others as packed matrix products), as {@link IntegerMatMul}
 * does for products. The input is centred on its zero point (so the convolution's zero padding is the zero point, as
 * ONNX specifies) and the weights on theirs, once, when they are constant. Every partial sum of the float
 * convolution is then an integer; the input channels of each group are cut into blocks such that, for every output
 * channel, {@code 255 * sum |W - w_zero_point|} over a block is at most 2^24, which bounds every partial sum and
 * keeps it exact in float. Each block's convolution is added to the int32 result (one block in most models: a 3x3
 * kernel over 64 channels of weights averaging 30 in magnitude sums to about 17,000 of the 65,793 a block may hold).
 * Immutable and thread safe.
 */
final class IntegerConv {
    /** Integers up to this magnitude are exact in float. */
    private static final long EXACT = 1L << 24;
    /** The largest magnitude of a centred 8-bit input. */
    private static final long INPUT_MAX = 255;

    private final int group;
    private final int cing;
    private final int cout;
    private final int rank;
    private final int[] blockStart;
    private final FloatConv[] blocks;

    private IntegerConv(int group, int cing, int cout, int rank, int[] blockStart, FloatConv[] blocks) {
        this.rank = rank;
        this.group = group;
        this.cing = cing;
        this.cout = cout;
        this.blockStart = blockStart;
        this.blocks = blocks;
    }

    /**
     * Whether weights can take this path: 8-bit, rank 3 or more, with a zero point of one value or one per output
     * channel.
     *
     * @param w the weights {@code (M, C / group, k1, ...)}
     * @param zeroPoint their zero point, or {@code null}
     * @return whether {@link #prepare} may take them
     */
    static boolean weightsFit(Tensor w, Tensor zeroPoint) {
        return eightBit(w.type()) && w.rank() >= 3 && (zeroPoint == null || zeroPoint.size() <= 1
                || zeroPoint.rank() == 1 && zeroPoint.size() == w.dim(0));
    }

    /**
     * Whether an input can take this path: 8-bit, rank 3 or more, with a zero point of at most one value.
     *
     * @param x the input
     * @param zeroPoint its zero point, or {@code null}
     * @return whether {@link #run} takes it
     */
    static boolean inputFits(Tensor x, Tensor zeroPoint) {
        return eightBit(x.type()) && x.rank() >= 3 && (zeroPoint == null || zeroPoint.size() <= 1);
    }

    /**
     * Centres the weights and prepares one float convolution per block of input channels.
     *
     * @param attrs the window attributes
     * @param group the group count
     * @param w the weights, as {@link #weightsFit} checked
     * @param zeroPoint their zero point, or {@code null}
     * @return the prepared convolution, or {@code null} when one input channel's taps alone could make a partial sum
     *     inexact (kernels of more than 258 taps with extreme weights), which the caller computes another way
     */
    static IntegerConv prepare(Window.Attrs attrs, int group, Tensor w, Tensor zeroPoint) {
        int cout = Math.toIntExact(w.dim(0));
        int cing = Math.toIntExact(w.dim(1));
        int taps = 1;
        for (int d = 2; d < w.rank(); d++) {
            taps = Math.multiplyExact(taps, Math.toIntExact(w.dim(d)));
        }
        int perChannel = Math.multiplyExact(cing, taps);
        byte[] raw = (byte[]) w.data();
        boolean unsigned = w.type() == ElementType.UINT8;
        float[] centred = new float[raw.length];
        // magnitude[co * cing + ci]: the sum of |W - zero point| over one input channel's taps
        long[] magnitude = new long[Math.multiplyExact(cout, cing)];
        for (int co = 0; co < cout; co++) {
            int zero = zeroPoint == null || zeroPoint.size() == 0 ? 0
                    : (int) zeroPoint.getLong(zeroPoint.size() == 1 ? 0 : co);
            for (int ci = 0; ci < cing; ci++) {
                long sum = 0;
                for (int t = 0, i = co * perChannel + ci * taps; t < taps; t++, i++) {
                    int v = (unsigned ? raw[i] & 0xff : raw[i]) - zero;
                    centred[i] = v;
                    sum += Math.abs(v);
                }
                magnitude[co * cing + ci] = sum;
            }
        }
        List<Integer> starts = new ArrayList<>();
        long[] running = new long[cout];
        for (int ci = 0; ci < cing; ci++) {
            boolean fits = true;
            boolean alone = true;
            for (int co = 0; co < cout; co++) {
                long m = magnitude[co * cing + ci];
                alone &= m * INPUT_MAX <= EXACT;
                fits &= (running[co] + m) * INPUT_MAX <= EXACT;
            }
            if (!alone) {
                return null;
            }
            if (ci == 0 || !fits) {
                starts.add(ci);
                Arrays.fill(running, 0);
            }
            for (int co = 0; co < cout; co++) {
                running[co] += magnitude[co * cing + ci];
            }
        }
        if (cing == 0) {
            starts.add(0);
        }
        int[] blockStart = new int[starts.size() + 1];
        for (int b = 0; b < starts.size(); b++) {
            blockStart[b] = starts.get(b);
        }
        blockStart[starts.size()] = cing;
        FloatConv[] blocks = new FloatConv[starts.size()];
        for (int b = 0; b < blocks.length; b++) {
            int c0 = blockStart[b];
            int cb = blockStart[b + 1] - c0;
            long[] shape = w.shape();
            shape[1] = cb;
            float[] part = centred;
            if (blocks.length > 1) {
                part = new float[Math.multiplyExact(cout, cb * taps)];
                for (int co = 0; co < cout; co++) {
                    System.arraycopy(centred, co * perChannel + c0 * taps, part, co * cb * taps, cb * taps);
                }
            }
            blocks[b] = FloatConv.create(attrs, group, shape, part, null, ChannelOps.NONE);
        }
        return new IntegerConv(group, cing, cout, w.rank(), blockStart, blocks);
    }

    /**
     * Whether an input has the rank and channel count of these weights.
     *
     * @param x the input
     * @return whether {@link #run} takes its shape
     */
    boolean accepts(Tensor x) {
        return x.rank() == rank && x.dim(1) == (long) group * cing;
    }

    /**
     * Convolves.
     *
     * @param x the input {@code (N, C, D1, ...)}, as {@link #inputFits} checked
     * @param zeroPoint its zero point, or {@code null}
     * @param bias an int32 bias of {@code M} values added to every output position, or {@code null}
     * @param ctx the run's context
     * @return the int32 output {@code (N, M, O1, ...)}
     */
    Tensor run(Tensor x, Tensor zeroPoint, Tensor bias, KernelContext ctx) {
        if (x.dim(1) != (long) group * cing) {
            throw new InvalidArgumentException("Conv channels do not match: X has " + x.dim(1) + ", W has " + cing
                    + " per group, group " + group);
        }
        if (bias != null && (bias.type() != ElementType.INT32 || bias.size() != cout)) {
            throw new InvalidArgumentException("Conv bias B must be " + cout + " int32 values, got "
                    + bias.type() + " [" + Tensor.shapeString(bias.shape()) + "]");
        }
        byte[] raw = (byte[]) x.data();
        boolean unsigned = x.type() == ElementType.UINT8;
        int zero = zeroPoint == null || zeroPoint.size() == 0 ? 0 : (int) zeroPoint.getLong(0);
        Tensor input = ctx.allocateUninitialized(ElementType.FLOAT, x.shape());
        float[] centred = input.floats();
        ctx.parallelFor(raw.length, 1 << 15, (from, to) -> {
            if (unsigned) {
                for (int i = from; i < to; i++) {
                    centred[i] = (raw[i] & 0xff) - zero;
                }
            } else {
                for (int i = from; i < to; i++) {
                    centred[i] = raw[i] - zero;
                }
            }
        });
        int[] acc = null;
        Tensor result = null;
        for (int b = 0; b < blocks.length; b++) {
            Tensor part = blocks.length == 1 ? input : channels(input, blockStart[b], blockStart[b + 1], ctx);
            Tensor y = blocks[b].run(part, ctx);
            float[] yv = y.floats();
            if (result == null) {
                result = ctx.allocateUninitialized(ElementType.INT32, y.shape());
                acc = result.ints();
                int[] a = acc;
                ctx.parallelFor(yv.length, 1 << 15, (from, to) -> {
                    for (int i = from; i < to; i++) {
                        a[i] = (int) yv[i];
                    }
                });
            } else {
                int[] a = acc;
                ctx.parallelFor(yv.length, 1 << 15, (from, to) -> {
                    for (int i = from; i < to; i++) {
                        a[i] += (int) yv[i];
                    }
                });
            }
        }
        if (bias != null && result != null && result.size() > 0) {
            addBias(acc, result, bias);
        }
        return result;
    }

    private static void addBias(int[] acc, Tensor result, Tensor bias) {
        int cout = (int) result.dim(1);
        int plane = cout == 0 ? 0 : (int) (result.size() / result.dim(0) / cout);
        int[] b = bias.ints();
        for (int i = 0, r = 0; i < acc.length; i += plane, r++) {
            int v = b[r % cout];
            for (int j = i; j < i + plane; j++) {
                acc[j] += v;
            }
        }
    }

    /** Input channels {@code [c0, c1)} of every group, as one tensor of {@code group * (c1 - c0)} channels. */
    private Tensor channels(Tensor x, int c0, int c1, KernelContext ctx) {
        int n = (int) x.dim(0);
        int plane = (int) (x.size() / Math.max(1, x.dim(0) * x.dim(1)));
        int cb = c1 - c0;
        long[] shape = x.shape();
        shape[1] = (long) group * cb;
        Tensor out = ctx.allocateUninitialized(ElementType.FLOAT, shape);
        float[] src = x.floats();
        float[] dst = out.floats();
        for (int ni = 0; ni < n; ni++) {
            for (int g = 0; g < group; g++) {
                System.arraycopy(src, ((ni * group + g) * cing + c0) * plane, dst, ((ni * group + g) * cb) * plane,
                        cb * plane);
            }
        }
        return out;
    }

    private static boolean eightBit(ElementType t) {
        return t == ElementType.UINT8 || t == ElementType.INT8;
    }
}
