package io.ortex.ep.cpu.ops.nn;

import io.ortex.api.ElementType;
import io.ortex.api.InvalidArgumentException;
import io.ortex.api.NotImplementedException;
import io.ortex.api.Tensor;
import io.ortex.api.spi.KernelContext;
import io.ortex.api.spi.NodeView;
import io.ortex.api.spi.ValueView;
import io.ortex.ep.cpu.CpuKernel;
import io.ortex.ep.cpu.ops.math.PackedMatrix;
import io.ortex.ep.cpu.ops.math.Sgemm;
import io.ortex.ep.cpu.ops.support.Values;
import io.ortex.ep.cpu.ops.support.WorkingArrays;
import java.util.Arrays;

/**
 * Conv for 1 to 3 spatial axes with groups, strides, dilations, pads and auto_pad. Float32 (and the 16-bit floats
 * through float32) gathers runs of {@link PackedMatrix#PANEL} output positions with {@link Im2col} and multiplies
 * them by the group's weights with {@link Sgemm}, in parallel over (image, group, run); weights and bias held by
 * constant initializers are converted once. Float64 uses a direct loop.
 */
public final class ConvKernel {
    private ConvKernel() {
    }

    static CpuKernel create(NodeView node) {
        Window.Attrs attrs = Window.attrs(node, false);
        int group = (int) node.intAttr("group", 1);
        if (group < 1) {
            throw new InvalidArgumentException("Conv attribute group must be positive, got " + group);
        }
        float[] constW = constantFloats(node, 1);
        float[] constBias = constantFloats(node, 2);
        return (in, ctx) -> new Tensor[] {conv(in[0], in[1], in.length > 2 ? in[2] : null, attrs, group, constW,
                constBias, ctx)};
    }

    /** The float values of a constant initializer input of a float type, or null. */
    static float[] constantFloats(NodeView node, int index) {
        if (node.inputs().size() <= index) {
            return null;
        }
        ValueView v = node.inputs().get(index);
        if (v == null || !v.isConstantInitializer()) {
            return null;
        }
        Tensor t = v.initializer().orElse(null);
        return t != null && WorkingArrays.viaFloat(t.type()) ? Values.toFloats(t) : null;
    }

    /**
     * Computes a convolution.
     *
     * @param x the input {@code (N, C, D1, ...)}
     * @param w the weights {@code (M, C / group, k1, ...)}, of x's type
     * @param b the bias {@code (M)}, or {@code null}
     * @param attrs the window attributes
     * @param group the group count
     * @param constW the weights as float32 when they are a constant initializer, else {@code null}
     * @param constBias the bias as float32 when it is a constant initializer, else {@code null}
     * @param ctx the run's context
     * @return the output {@code (N, M, O1, ...)}
     */
    public static Tensor conv(Tensor x, Tensor w, Tensor b, Window.Attrs attrs, int group, float[] constW,
            float[] constBias, KernelContext ctx) {
        if (x.rank() < 3 || w.rank() != x.rank()) {
            throw new InvalidArgumentException("Conv input X [" + Tensor.shapeString(x.shape()) + "] and weights W ["
                    + Tensor.shapeString(w.shape()) + "] must have the same rank, at least 3");
        }
        if (x.type() != w.type()) {
            throw new InvalidArgumentException("Conv inputs X and W have different types " + x.type() + " and "
                    + w.type());
        }
        int r = x.rank() - 2;
        long[] kernel = Arrays.copyOfRange(w.shape(), 2, w.rank());
        if (attrs.kernel() != null && !Arrays.equals(attrs.kernel(), kernel)) {
            throw new InvalidArgumentException("Conv attribute kernel_shape " + Arrays.toString(attrs.kernel())
                    + " differs from the weights' spatial shape " + Arrays.toString(kernel));
        }
        Window g = Window.resolve(attrs, Arrays.copyOfRange(x.shape(), 2, x.rank()), kernel);
        int n = (int) x.dim(0);
        int c = (int) x.dim(1);
        int cout = (int) w.dim(0);
        int cing = (int) w.dim(1);
        if (c != cing * group || cout % group != 0) {
            throw new InvalidArgumentException("Conv channels do not match: X has " + c + ", W is ["
                    + Tensor.shapeString(w.shape()) + "], group " + group);
        }
        if (b != null && b.size() != cout) {
            throw new InvalidArgumentException("Conv bias B has " + b.size() + " elements, expected " + cout);
        }
        long[] outShape = new long[r + 2];
        outShape[0] = n;
        outShape[1] = cout;
        System.arraycopy(g.outShape, 0, outShape, 2, r);
        ElementType type = x.type();
        if (WorkingArrays.viaFloat(type)) {
            float[] wv = constW != null && constW.length == w.size() ? constW : Values.toFloats(w);
            float[] bv = b == null ? null : constBias != null && constBias.length == b.size() ? constBias
                    : Values.toFloats(b);
            float[] y = convFloat(Values.toFloats(x), wv, bv, n, c, cout, group, g, ctx);
            return WorkingArrays.fromFloats(type, outShape, y);
        }
        if (type == ElementType.DOUBLE) {
            double[] y = convDouble(x.doubles(), w.doubles(), b == null ? null : WorkingArrays.doubles(b), n, c, cout,
                    group, g);
            return Tensor.of(type, outShape, y);
        }
        throw new NotImplementedException("Conv is not implemented for type " + type);
    }

    private static float[] convFloat(float[] x, float[] w, float[] bias, int n, int c, int cout, int group,
            Window g, KernelContext ctx) {
        int pOut = g.outSize();
        int pIn = g.inSize();
        int cing = c / group;
        int coutg = cout / group;
        int kc = cing * g.kernelSize();
        float[] y = new float[Math.multiplyExact(Math.multiplyExact(n, cout), pOut)];
        if (y.length == 0) {
            return y;
        }
        int panels = PackedMatrix.panels(pOut);
        ctx.parallelFor(n * group * panels, 1, (from, to) -> {
            float[][] rows = new float[kc][Math.min(PackedMatrix.PANEL, pOut)];
            for (int u = from; u < to; u++) {
                int p = u % panels;
                int gi = (u / panels) % group;
                int ni = u / (panels * group);
                int p0 = p * PackedMatrix.PANEL;
                int width = Math.min(PackedMatrix.PANEL, pOut - p0);
                Im2col.gather(x, (ni * c + gi * cing) * pIn, cing, g, p0, width, rows);
                int yOff = (ni * cout + gi * coutg) * pOut + p0;
                if (bias != null) {
                    for (int co = 0; co < coutg; co++) {
                        Arrays.fill(y, yOff + co * pOut, yOff + co * pOut + width, bias[gi * coutg + co]);
                    }
                }
                Sgemm.panel(w, gi * coutg * kc, kc, 0, coutg, kc, rows, 0, width, y, yOff, pOut, 1f, bias != null);
            }
        });
        return y;
    }

    private static double[] convDouble(double[] x, double[] w, double[] bias, int n, int c, int cout, int group,
            Window g) {
        int pOut = g.outSize();
        int pIn = g.inSize();
        int cing = c / group;
        int coutg = cout / group;
        int kv = g.kernelSize();
        double[] y = new double[n * cout * pOut];
        for (int ni = 0; ni < n; ni++) {
            for (int co = 0; co < cout; co++) {
                int gi = co / coutg;
                for (int od = 0; od < g.out[0]; od++) {
                    for (int oh = 0; oh < g.out[1]; oh++) {
                        for (int ow = 0; ow < g.out[2]; ow++) {
                            double s = bias == null ? 0 : bias[co];
                            for (int ci = 0; ci < cing; ci++) {
                                int xc = (ni * c + gi * cing + ci) * pIn;
                                int wc = (co * cing + ci) * kv;
                                for (int kd = 0; kd < g.k[0]; kd++) {
                                    int id = od * g.s[0] - g.pb[0] + kd * g.d[0];
                                    if (id < 0 || id >= g.in[0]) {
                                        continue;
                                    }
                                    for (int kh = 0; kh < g.k[1]; kh++) {
                                        int ih = oh * g.s[1] - g.pb[1] + kh * g.d[1];
                                        if (ih < 0 || ih >= g.in[1]) {
                                            continue;
                                        }
                                        for (int kw = 0; kw < g.k[2]; kw++) {
                                            int iw = ow * g.s[2] - g.pb[2] + kw * g.d[2];
                                            if (iw >= 0 && iw < g.in[2]) {
                                                s += x[xc + (id * g.in[1] + ih) * g.in[2] + iw]
                                                        * w[wc + (kd * g.k[1] + kh) * g.k[2] + kw];
                                            }
                                        }
                                    }
                                }
                            }
                            y[((ni * cout + co) * g.out[0] + od) * g.out[1] * g.out[2] + oh * g.out[2] + ow] = s;
                        }
                    }
                }
            }
        }
        return y;
    }
}
