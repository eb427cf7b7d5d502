package io.ortex.ep.cpu.ops.nn;

import io.ortex.api.ElementType;
import io.ortex.api.InvalidArgumentException;
import io.ortex.api.InvalidModelException;
import io.ortex.api.NotImplementedException;
import io.ortex.api.Tensor;
import io.ortex.api.spi.KernelContext;
import io.ortex.api.spi.NodeView;
import io.ortex.ep.cpu.CpuKernel;
import io.ortex.ep.cpu.ops.math.MatMulKernel;
import io.ortex.ep.cpu.ops.math.PackedMatrix;
import io.ortex.ep.cpu.ops.math.Sgemm;
import io.ortex.ep.cpu.ops.support.Values;
import io.ortex.ep.cpu.ops.support.WorkingArrays;
import java.util.Arrays;

/**
 * ConvTranspose for 1 to 3 spatial axes with groups, strides, dilations, pads, output_padding, output_shape and
 * auto_pad. Each group's transposed weights multiply runs of input positions ({@link Sgemm}); the resulting
 * columns are scattered into the output (col2im), in parallel over (image, group, block of output channels) so
 * that no two tasks write the same element. Float64 is computed through the same scatter in double.
 */
final class ConvTransposeKernel {
    private ConvTransposeKernel() {
    }

    /** Resolved geometry lifted to 3 spatial axes. */
    private static final class Geometry {
        final int[] in = {1, 1, 1};
        final int[] k = {1, 1, 1};
        final int[] s = {1, 1, 1};
        final int[] d = {1, 1, 1};
        final int[] pb = new int[3];
        final int[] out = {1, 1, 1};
        long[] outShape;

        int inSize() {
            return in[0] * in[1] * in[2];
        }

        int outSize() {
            return out[0] * out[1] * out[2];
        }

        int kernelSize() {
            return k[0] * k[1] * k[2];
        }
    }

    private record Attrs(String autoPad, long[] strides, long[] dilations, long[] pads, long[] outputPadding,
            long[] outputShape, long[] kernel, int group) {
    }

    static CpuKernel create(NodeView node) {
        Attrs a = new Attrs(node.stringAttr("auto_pad", "NOTSET"), node.intsAttr("strides", null),
                node.intsAttr("dilations", null), node.intsAttr("pads", null), node.intsAttr("output_padding", null),
                node.intsAttr("output_shape", null), node.intsAttr("kernel_shape", null),
                (int) node.intAttr("group", 1));
        if (!Arrays.asList("NOTSET", "SAME_UPPER", "SAME_LOWER", "VALID").contains(a.autoPad())) {
            throw new InvalidModelException("ConvTranspose attribute auto_pad has an unknown value '" + a.autoPad()
                    + "'");
        }
        if (a.group() < 1) {
            throw new InvalidArgumentException("ConvTranspose attribute group must be positive, got " + a.group());
        }
        float[] constW = ConvKernel.constantFloats(node, 1);
        float[] constBias = ConvKernel.constantFloats(node, 2);
        return (in, ctx) -> new Tensor[] {run(in[0], in[1], in.length > 2 ? in[2] : null, a, constW, constBias,
                ctx)};
    }

    private static Geometry geometry(Attrs a, long[] spatial, long[] kernel) {
        int r = spatial.length;
        if (r < 1 || r > 3) {
            throw new NotImplementedException("ConvTranspose supports 1 to 3 spatial dimensions, got " + r);
        }
        Geometry g = new Geometry();
        g.outShape = new long[r];
        int lift = 3 - r;
        for (int i = 0; i < r; i++) {
            int ax = lift + i;
            g.in[ax] = (int) spatial[i];
            g.k[ax] = (int) kernel[i];
            g.s[ax] = a.strides() == null ? 1 : (int) a.strides()[i];
            g.d[ax] = a.dilations() == null ? 1 : (int) a.dilations()[i];
            int adj = a.outputPadding() == null ? 0 : (int) a.outputPadding()[i];
            int full = g.s[ax] * (g.in[ax] - 1) + adj + (g.k[ax] - 1) * g.d[ax] + 1;
            int o;
            if (a.outputShape() != null) {
                o = (int) a.outputShape()[a.outputShape().length - r + i];
                int total = full - o;
                g.pb[ax] = a.autoPad().equals("SAME_UPPER") ? total / 2 : total - total / 2;
            } else if (a.autoPad().startsWith("SAME")) {
                o = g.in[ax] * g.s[ax];
                int total = full - o;
                g.pb[ax] = a.autoPad().equals("SAME_UPPER") ? total / 2 : total - total / 2;
            } else if (a.autoPad().equals("VALID") || a.pads() == null) {
                o = full;
            } else {
                g.pb[ax] = (int) a.pads()[i];
                o = full - g.pb[ax] - (int) a.pads()[i + r];
            }
            if (o < 0) {
                throw new InvalidArgumentException("ConvTranspose output size along spatial axis " + i
                        + " is negative");
            }
            g.out[ax] = o;
            g.outShape[i] = o;
        }
        return g;
    }

    private static Tensor run(Tensor x, Tensor w, Tensor b, Attrs a, float[] constW, float[] constBias,
            KernelContext ctx) {
        if (x.rank() < 3 || w.rank() != x.rank()) {
            throw new InvalidArgumentException("ConvTranspose input X [" + Tensor.shapeString(x.shape())
                    + "] and weights W [" + Tensor.shapeString(w.shape()) + "] must have the same rank, at least 3");
        }
        int r = x.rank() - 2;
        int group = a.group();
        int n = (int) x.dim(0);
        int cin = (int) x.dim(1);
        int coutg = (int) w.dim(1);
        int cout = coutg * group;
        if (w.dim(0) != cin || cin % group != 0) {
            throw new InvalidArgumentException("ConvTranspose channels do not match: X has " + cin + ", W is ["
                    + Tensor.shapeString(w.shape()) + "], group " + group);
        }
        if (b != null && b.size() != cout) {
            throw new InvalidArgumentException("ConvTranspose bias B has " + b.size() + " elements, expected "
                    + cout);
        }
        Geometry g = geometry(a, Arrays.copyOfRange(x.shape(), 2, x.rank()),
                Arrays.copyOfRange(w.shape(), 2, w.rank()));
        long[] outShape = new long[r + 2];
        outShape[0] = n;
        outShape[1] = cout;
        System.arraycopy(g.outShape, 0, outShape, 2, r);
        ElementType type = x.type();
        if (WorkingArrays.viaFloat(type)) {
            float[] wv = constW != null && constW.length == w.size() ? constW : Values.toFloats(w);
            float[] bv = b == null ? null : constBias != null && constBias.length == b.size() ? constBias
                    : Values.toFloats(b);
            float[] y = floatTransposed(Values.toFloats(x), wv, bv, n, cin, coutg, group, g, ctx);
            return WorkingArrays.fromFloats(type, outShape, y);
        }
        if (type == ElementType.DOUBLE) {
            return Tensor.of(type, outShape, doubleTransposed(x.doubles(), w.doubles(),
                    b == null ? null : WorkingArrays.doubles(b), n, cin, coutg, group, g));
        }
        throw new NotImplementedException("ConvTranspose is not implemented for type " + type);
    }

    private static float[] floatTransposed(float[] x, float[] w, float[] bias, int n, int cin, int coutg,
            int group, Geometry g, KernelContext ctx) {
        int cing = cin / group;
        int cout = coutg * group;
        int kv = g.kernelSize();
        int pIn = g.inSize();
        int pOut = g.outSize();
        // wt[g][(co * kv + kp) * cing + ci] = w[g * cing + ci][co][kp]
        float[] wt = new float[w.length];
        for (int gi = 0; gi < group; gi++) {
            for (int ci = 0; ci < cing; ci++) {
                for (int row = 0; row < coutg * kv; row++) {
                    wt[gi * coutg * kv * cing + row * cing + ci] = w[(gi * cing + ci) * coutg * kv + row];
                }
            }
        }
        float[] y = new float[Math.multiplyExact(Math.multiplyExact(n, cout), pOut)];
        if (y.length == 0) {
            return y;
        }
        int block = Math.max(1, Math.min(coutg, MatMulKernel.ROW_BLOCK / kv));
        int blocks = (coutg + block - 1) / block;
        int panelWidth = Math.max(1, Math.min(PackedMatrix.PANEL, pIn));
        ctx.parallelFor(n * group * blocks, 1, (from, to) -> {
            float[][] rows = new float[cing][panelWidth];
            float[] cols = new float[block * kv * panelWidth];
            for (int u = from; u < to; u++) {
                int bi = u % blocks;
                int gi = (u / blocks) % group;
                int ni = u / (blocks * group);
                int c0 = bi * block;
                int c1 = Math.min(coutg, c0 + block);
                int yBase = (ni * cout + gi * coutg) * pOut;
                if (bias != null) {
                    for (int co = c0; co < c1; co++) {
                        Arrays.fill(y, yBase + co * pOut, yBase + (co + 1) * pOut, bias[gi * coutg + co]);
                    }
                }
                int xBase = (ni * cin + gi * cing) * pIn;
                for (int p0 = 0; p0 < pIn; p0 += PackedMatrix.PANEL) {
                    int width = Math.min(PackedMatrix.PANEL, pIn - p0);
                    for (int ci = 0; ci < cing; ci++) {
                        System.arraycopy(x, xBase + ci * pIn + p0, rows[ci], 0, width);
                    }
                    int m = (c1 - c0) * kv;
                    Sgemm.panel(wt, gi * coutg * kv * cing + c0 * kv * cing, cing, 0, m, cing, rows, 0, width, cols,
                            0, width, 1f, false);
                    for (int co = c0; co < c1; co++) {
                        scatter(cols, (co - c0) * kv * width, width, p0, g, y, yBase + co * pOut);
                    }
                }
            }
        });
        return y;
    }

    /** Adds the columns of one output channel (kv rows of {@code width} input positions) into its plane. */
    private static void scatter(float[] cols, int cOff, int width, int p0, Geometry g, float[] y, int yOff) {
        int row = 0;
        for (int kd = 0; kd < g.k[0]; kd++) {
            for (int kh = 0; kh < g.k[1]; kh++) {
                for (int kw = 0; kw < g.k[2]; kw++, row++) {
                    int src = cOff + row * width;
                    for (int j = 0; j < width; j++) {
                        int pos = p0 + j;
                        int iw = pos % g.in[2];
                        int rest = pos / g.in[2];
                        int ih = rest % g.in[1];
                        int id = rest / g.in[1];
                        int od = id * g.s[0] - g.pb[0] + kd * g.d[0];
                        int oh = ih * g.s[1] - g.pb[1] + kh * g.d[1];
                        int ow = iw * g.s[2] - g.pb[2] + kw * g.d[2];
                        if (od >= 0 && od < g.out[0] && oh >= 0 && oh < g.out[1] && ow >= 0 && ow < g.out[2]) {
                            y[yOff + (od * g.out[1] + oh) * g.out[2] + ow] += cols[src + j];
                        }
                    }
                }
            }
        }
    }

    private static double[] doubleTransposed(double[] x, double[] w, double[] bias, int n, int cin, int coutg,
            int group, Geometry g) {
        int cing = cin / group;
        int cout = coutg * group;
        int kv = g.kernelSize();
        int pIn = g.inSize();
        int pOut = g.outSize();
        double[] y = new double[n * cout * pOut];
        for (int ni = 0; ni < n; ni++) {
            for (int co = 0; co < cout; co++) {
                int gi = co / coutg;
                int yOff = (ni * cout + co) * pOut;
                if (bias != null) {
                    Arrays.fill(y, yOff, yOff + pOut, bias[co]);
                }
                for (int ci = 0; ci < cing; ci++) {
                    int xOff = (ni * cin + gi * cing + ci) * pIn;
                    int wOff = ((gi * cing + ci) * coutg + co % coutg) * kv;
                    for (int pos = 0; pos < pIn; pos++) {
                        int iw = pos % g.in[2];
                        int ih = (pos / g.in[2]) % g.in[1];
                        int id = pos / (g.in[2] * g.in[1]);
                        int kp = 0;
                        for (int kd = 0; kd < g.k[0]; kd++) {
                            for (int kh = 0; kh < g.k[1]; kh++) {
                                for (int kw = 0; kw < g.k[2]; kw++, kp++) {
                                    int od = id * g.s[0] - g.pb[0] + kd * g.d[0];
                                    int oh = ih * g.s[1] - g.pb[1] + kh * g.d[1];
                                    int ow = iw * g.s[2] - g.pb[2] + kw * g.d[2];
                                    if (od >= 0 && od < g.out[0] && oh >= 0 && oh < g.out[1] && ow >= 0
                                            && ow < g.out[2]) {
                                        y[yOff + (od * g.out[1] + oh) * g.out[2] + ow] += x[xOff + pos] * w[wOff + kp];
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        return y;
    }
}
