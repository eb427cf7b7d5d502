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
 * ConvTranspose for 1 to 3 spatial axes with groups, strides, dilations, pads, output_padding, output_shape and
 * auto_pad. Float32 (and the 16-bit floats through float32) runs on {@link FloatConvTranspose}: with constant weights
 * (and bias) they are prepared once, when the node is compiled; otherwise on every call. Float64 is computed by a
 * direct scatter in double.
 */
final class ConvTransposeKernel {
    private ConvTransposeKernel() {
    }

    static CpuKernel create(NodeView node) {
        TransposeWindow.Attrs a = TransposeWindow.Attrs.of(node);
        FloatConvTranspose prepared = prepare(node, a);
        return (in, ctx) -> new Tensor[] {run(in[0], in[1], in.length > 2 ? in[2] : null, a, prepared, ctx)};
    }

    /** The float transposed convolution of a node whose weights (and bias, if any) are constants, or null. */
    private static FloatConvTranspose prepare(NodeView node, TransposeWindow.Attrs a) {
        Tensor w = ConvKernel.constant(node, 1);
        boolean hasBias = node.inputs().size() > 2 && node.inputs().get(2) != null;
        Tensor b = hasBias ? ConvKernel.constant(node, 2) : null;
        if (w == null || !WorkingArrays.viaFloat(w.type()) || hasBias && (b == null || b.type() != w.type())) {
            return null;
        }
        return FloatConvTranspose.create(a, w.shape(), Values.toFloats(w), b == null ? null : Values.toFloats(b),
                ChannelOps.NONE);
    }

    private static Tensor run(Tensor x, Tensor w, Tensor b, TransposeWindow.Attrs a, FloatConvTranspose prepared,
            KernelContext ctx) {
        if (x.rank() < 3 || w.rank() != x.rank()) {
            throw new InvalidArgumentException("ConvTranspose input X [" + Tensor.shapeString(x.shape())
                    + "] and weights W [" + Tensor.shapeString(w.shape()) + "] must have the same rank, at least 3");
        }
        if (x.type() != w.type()) {
            throw new InvalidArgumentException("ConvTranspose inputs X and W have different types " + x.type()
                    + " and " + w.type());
        }
        ElementType type = x.type();
        if (WorkingArrays.viaFloat(type)) {
            FloatConvTranspose fc = prepared != null ? prepared : FloatConvTranspose.create(a, w.shape(),
                    Values.toFloats(w), b == null ? null : Values.toFloats(b), ChannelOps.NONE);
            if (type == ElementType.FLOAT) {
                return fc.run(x, ctx);
            }
            Tensor y = fc.run(Tensor.ofFloats(Values.toFloats(x), x.shape()), ctx);
            return WorkingArrays.fromFloats(type, y.shape(), y.floats());
        }
        if (type != ElementType.DOUBLE) {
            throw new NotImplementedException("ConvTranspose is not implemented for type " + type);
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
        TransposeWindow g = TransposeWindow.resolve(a, Arrays.copyOfRange(x.shape(), 2, x.rank()),
                Arrays.copyOfRange(w.shape(), 2, w.rank()));
        long[] outShape = new long[r + 2];
        outShape[0] = n;
        outShape[1] = cout;
        System.arraycopy(g.outShape, 0, outShape, 2, r);
        return Tensor.of(type, outShape, doubleTransposed(x.doubles(), w.doubles(),
                b == null ? null : WorkingArrays.doubles(b), n, cin, coutg, group, g));
    }

    private static double[] doubleTransposed(double[] x, double[] w, double[] bias, int n, int cin, int coutg,
            int group, TransposeWindow g) {
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
