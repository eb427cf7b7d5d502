package io.ortex.ep.cpu.ops.nn;

import io.ortex.api.ElementType;
import io.ortex.api.InvalidArgumentException;
import io.ortex.api.NotImplementedException;
import io.ortex.api.Tensor;
import io.ortex.api.spi.KernelContext;
import io.ortex.api.spi.NodeView;
import io.ortex.ep.cpu.CpuKernel;
import io.ortex.ep.cpu.ops.support.Values;
import io.ortex.ep.cpu.ops.support.WorkingArrays;
import java.util.Arrays;

/**
 * The windowed pools MaxPool (with its optional Indices output), AveragePool and LpPool over 1 to 3 spatial axes,
 * with pads, auto_pad, strides, dilations and ceil_mode. Each (image, channel) plane is widened to double once and
 * pooled, in parallel over planes.
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
        return (in, ctx) -> pool(in[0], kind, attrs, includePad, storageOrder, p, ctx);
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
