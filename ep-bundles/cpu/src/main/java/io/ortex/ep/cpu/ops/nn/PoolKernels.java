package io.ortex.ep.cpu.ops.nn;

import io.ortex.api.ElementType;
import io.ortex.api.InvalidArgumentException;
import io.ortex.api.NotImplementedException;
import io.ortex.api.Tensor;
import io.ortex.api.spi.KernelContext;
import io.ortex.api.spi.NodeView;
import io.ortex.ep.cpu.CpuKernel;
import io.ortex.ep.cpu.linalg.Elementwise;
import io.ortex.ep.cpu.ops.support.Values;
import io.ortex.ep.cpu.ops.support.WorkingArrays;
import java.util.Arrays;

/**
 * The windowed pools MaxPool (with its optional Indices output), AveragePool and LpPool over 1 to 3 spatial axes,
 * with pads, auto_pad, strides, dilations and ceil_mode. Each (image, channel) plane is widened to double once and
 * pooled, in parallel over planes; a float32 MaxPool without its Indices output is taken straight from the input.
 */
final class PoolKernels {
    /** The pooling function. */
    enum Kind { MAX, AVERAGE, LP }

    private PoolKernels() {
    }

    static CpuKernel create(NodeView node, Kind kind) {
        Window.Attrs attrs = Window.attrs(node, true);
        boolean includePad = node.intAttr("count_include_pad", 0) != 0;
        int storageOrder = (int) node.intAttr("storage_order", 0);
        double p = kind == Kind.LP ? node.intAttr("p", 2) : 0;
        if (attrs.ceil() && kind == Kind.LP) {
            throw new NotImplementedException("LpPool attribute ceil_mode is not supported");
        }
        boolean indices = node.outputs().size() > 1 && node.outputs().get(1) != null;
        if (kind == Kind.MAX && !indices) {
            return (in, ctx) -> in[0].type() == ElementType.FLOAT ? new Tensor[] {maxFloat(in[0], attrs, ctx)}
                    : pool(in[0], kind, attrs, includePad, storageOrder, p, ctx);
        }
        return (in, ctx) -> pool(in[0], kind, attrs, includePad, storageOrder, p, ctx);
    }

    /** Float32 MaxPool without indices: straight from the input, one (image, channel) plane per task. */
    private static Tensor maxFloat(Tensor x, Window.Attrs attrs, KernelContext ctx) {
        if (x.rank() < 3) {
            throw new InvalidArgumentException(attrs.op() + " input X must have rank 3 or more, got ["
                    + Tensor.shapeString(x.shape()) + "]");
        }
        int r = x.rank() - 2;
        Window g = Window.resolve(attrs, Arrays.copyOfRange(x.shape(), 2, x.rank()), attrs.kernel());
        int planes = (int) x.dim(0) * (int) x.dim(1);
        int pIn = g.inSize();
        int pOut = g.outSize();
        long[] outShape = new long[r + 2];
        outShape[0] = x.dim(0);
        outShape[1] = x.dim(1);
        System.arraycopy(g.outShape, 0, outShape, 2, r);
        Tensor out = ctx.allocateUninitialized(ElementType.FLOAT, outShape);
        float[] xf = x.floats();
        float[] y = out.floats();
        ctx.parallelFor(planes, Math.max(1, 4096 / Math.max(1, pOut)), (from, to) -> {
            float[] span = isInside(g) && g.s[2] != 1 ? new float[g.in[2]] : null;
            for (int pl = from; pl < to; pl++) {
                maxPlane(xf, pl * pIn, g, y, pl * pOut, span);
            }
        });
        return out;
    }

    /** Whether every window lies inside the plane, on at most two axes, without dilation: {@link #maxInside}. */
    private static boolean isInside(Window g) {
        return g.k[0] == 1 && g.in[0] == 1 && g.d[1] == 1 && g.d[2] == 1 && g.pb[1] == 0 && g.pb[2] == 0
                && (g.out[1] - 1) * g.s[1] + g.k[1] <= g.in[1] && (g.out[2] - 1) * g.s[2] + g.k[2] <= g.in[2];
    }

    /** The max over each window of one plane, as {@link #poolPlane} takes it (NaN only when the first value is). */
    private static void maxPlane(float[] x, int base, Window g, float[] y, int yOff, float[] span) {
        if (isInside(g)) {
            maxInside(x, base, g, y, yOff, span);
            return;
        }
        int o = yOff;
        for (int od = 0; od < g.out[0]; od++) {
            int d0 = od * g.s[0] - g.pb[0];
            for (int oh = 0; oh < g.out[1]; oh++) {
                int h0 = oh * g.s[1] - g.pb[1];
                for (int ow = 0; ow < g.out[2]; ow++, o++) {
                    int w0 = ow * g.s[2] - g.pb[2];
                    float acc = Float.NEGATIVE_INFINITY;
                    boolean any = false;
                    for (int kd = 0; kd < g.k[0]; kd++) {
                        int id = d0 + kd * g.d[0];
                        if (id < 0 || id >= g.in[0]) {
                            continue;
                        }
                        for (int kh = 0; kh < g.k[1]; kh++) {
                            int ih = h0 + kh * g.d[1];
                            if (ih < 0 || ih >= g.in[1]) {
                                continue;
                            }
                            int row = base + (id * g.in[1] + ih) * g.in[2];
                            for (int kw = 0; kw < g.k[2]; kw++) {
                                int iw = w0 + kw * g.d[2];
                                if (iw >= 0 && iw < g.in[2]) {
                                    float v = x[row + iw];
                                    if (v > acc || !any) {
                                        acc = v;
                                        any = true;
                                    }
                                }
                            }
                        }
                    }
                    y[o] = acc;
                }
            }
        }
    }

    private static Tensor[] pool(Tensor x, Kind kind, Window.Attrs attrs, boolean includePad, int storageOrder,
            double p, KernelContext ctx) {
        if (x.rank() < 3) {
            throw new InvalidArgumentException(attrs.op() + " input X must have rank 3 or more, got ["
                    + Tensor.shapeString(x.shape()) + "]");
        }
        ElementType type = x.type();
        if (type == ElementType.STRING || type == ElementType.BOOL) {
            throw new NotImplementedException(attrs.op() + " is not implemented for type " + type);
        }
        int r = x.rank() - 2;
        Window g = Window.resolve(attrs, Arrays.copyOfRange(x.shape(), 2, x.rank()), attrs.kernel());
        int planes = (int) x.dim(0) * (int) x.dim(1);
        int pIn = g.inSize();
        int pOut = g.outSize();
        long[] outShape = new long[r + 2];
        outShape[0] = x.dim(0);
        outShape[1] = x.dim(1);
        System.arraycopy(g.outShape, 0, outShape, 2, r);
        double[] y = new double[planes * pOut];
        long[] indices = kind == Kind.MAX ? new long[y.length] : null;
        ctx.parallelFor(planes, 1, (from, to) -> {
            double[] plane = new double[pIn];
            for (int pl = from; pl < to; pl++) {
                int base = pl * pIn;
                if (type == ElementType.FLOAT) {
                    float[] xf = x.floats();
                    for (int i = 0; i < pIn; i++) {
                        plane[i] = xf[base + i];
                    }
                } else if (type == ElementType.DOUBLE) {
                    System.arraycopy(x.doubles(), base, plane, 0, pIn);
                } else {
                    for (int i = 0; i < pIn; i++) {
                        plane[i] = x.getDouble(base + i);
                    }
                }
                poolPlane(plane, g, kind, includePad, p, y, pl * pOut, indices, (long) base, storageOrder);
            }
        });
        Tensor out = WorkingArrays.viaFloat(type) ? WorkingArrays.fromFloats(type, outShape, toFloats(y))
                : Values.fromDoubles(type, outShape, y);
        return new Tensor[] {out, indices == null ? null : Tensor.ofLongs(indices, outShape)};
    }

    /**
     * {@link #maxPlane} for windows that all lie inside a plane of one or two axes, a row of outputs at a time, with
     * vectors: along a row, tap by tap where the stride is 1; otherwise the window's rows are merged first over the
     * contiguous run of input columns the row of outputs reads (into {@code span}), and each output then takes the
     * greatest of its window's columns. The merges propagate NaNs; an output that came out NaN is computed again tap
     * by tap as the general path does (the first tap starts the maximum and a later value replaces it only when
     * greater), so a NaN stays only where the window starts with one.
     *
     * @param span scratch of at least {@code (out - 1) * stride + kernel} floats of the last axis, when its stride
     *     is not 1
     */
    private static void maxInside(float[] x, int base, Window g, float[] y, int yOff, float[] span) {
        int ow = g.out[2];
        int sw = g.s[2];
        int kw = g.k[2];
        int width = (ow - 1) * sw + kw;
        for (int oh = 0; oh < g.out[1]; oh++) {
            int d = yOff + oh * ow;
            int top = base + oh * g.s[1] * g.in[2];
            if (sw == 1) {
                System.arraycopy(x, top, y, d, ow);
                for (int kh = 0; kh < g.k[1]; kh++) {
                    for (int t = kh == 0 ? 1 : 0; t < kw; t++) {
                        Elementwise.binary(Elementwise.Binary.MAX, y, d, x, top + kh * g.in[2] + t, y, d, ow);
                    }
                }
            } else {
                float[] rows = x;
                int from = top;
                if (g.k[1] > 1) {
                    System.arraycopy(x, top, span, 0, width);
                    for (int kh = 1; kh < g.k[1]; kh++) {
                        Elementwise.binary(Elementwise.Binary.MAX, span, 0, x, top + kh * g.in[2], span, 0, width);
                    }
                    rows = span;
                    from = 0;
                }
                if (sw == 2 && kw == 2) {
                    Elementwise.maxOfPairs(rows, from, y, d, ow);
                } else {
                    for (int j = 0, c = from; j < ow; j++, c += sw) {
                        float m = rows[c];
                        for (int t = 1; t < kw; t++) {
                            m = Math.max(m, rows[c + t]);
                        }
                        y[d + j] = m;
                    }
                }
            }
            for (int j = 0; j < ow; j++) {
                if (Float.isNaN(y[d + j])) {
                    y[d + j] = firstThenGreater(x, top + j * sw, g);
                }
            }
        }
    }

    /** The max over one window inside the plane, from its first tap at {@code at}, skipping later NaNs. */
    private static float firstThenGreater(float[] x, int at, Window g) {
        float m = x[at];
        for (int kh = 0; kh < g.k[1]; kh++) {
            for (int kw = kh == 0 ? 1 : 0; kw < g.k[2]; kw++) {
                float v = x[at + kh * g.in[2] + kw];
                if (v > m) {
                    m = v;
                }
            }
        }
        return m;
    }

    private static float[] toFloats(double[] y) {
        float[] f = new float[y.length];
        for (int i = 0; i < f.length; i++) {
            f[i] = (float) y[i];
        }
        return f;
    }

    private static void poolPlane(double[] x, Window g, Kind kind, boolean includePad, double p, double[] y,
            int yOff, long[] indices, long planeBase, int storageOrder) {
        int o = yOff;
        for (int od = 0; od < g.out[0]; od++) {
            int d0 = od * g.s[0] - g.pb[0];
            for (int oh = 0; oh < g.out[1]; oh++) {
                int h0 = oh * g.s[1] - g.pb[1];
                for (int ow = 0; ow < g.out[2]; ow++, o++) {
                    int w0 = ow * g.s[2] - g.pb[2];
                    double acc = kind == Kind.MAX ? Double.NEGATIVE_INFINITY : 0;
                    int best = -1;
                    int valid = 0;
                    int padded = 0;
                    for (int kd = 0; kd < g.k[0]; kd++) {
                        int id = d0 + kd * g.d[0];
                        boolean inD = id >= 0 && id < g.in[0];
                        boolean padD = id >= -g.pb[0] && id < g.in[0] + g.pe[0];
                        for (int kh = 0; kh < g.k[1]; kh++) {
                            int ih = h0 + kh * g.d[1];
                            boolean inH = inD && ih >= 0 && ih < g.in[1];
                            boolean padH = padD && ih >= -g.pb[1] && ih < g.in[1] + g.pe[1];
                            for (int kw = 0; kw < g.k[2]; kw++) {
                                int iw = w0 + kw * g.d[2];
                                if (padH && iw >= -g.pb[2] && iw < g.in[2] + g.pe[2]) {
                                    padded++;
                                }
                                if (!inH || iw < 0 || iw >= g.in[2]) {
                                    continue;
                                }
                                int idx = (id * g.in[1] + ih) * g.in[2] + iw;
                                double v = x[idx];
                                valid++;
                                switch (kind) {
                                    case MAX:
                                        if (v > acc || best < 0) {
                                            acc = v;
                                            best = storageOrder == 0 ? idx : ih + iw * g.in[1] + id * g.in[1]
                                                    * g.in[2];
                                        }
                                        break;
                                    case AVERAGE:
                                        acc += v;
                                        break;
                                    default:
                                        acc += Math.pow(Math.abs(v), p);
                                }
                            }
                        }
                    }
                    switch (kind) {
                        case MAX:
                            y[o] = acc;
                            if (indices != null) {
                                indices[o] = best < 0 ? -1 : planeBase + best;
                            }
                            break;
                        case AVERAGE: {
                            int count = includePad ? padded : valid;
                            y[o] = count == 0 ? 0 : acc / count;
                            break;
                        }
                        default:
                            y[o] = Math.pow(acc, 1 / p);
                    }
                }
            }
        }
    }
}
