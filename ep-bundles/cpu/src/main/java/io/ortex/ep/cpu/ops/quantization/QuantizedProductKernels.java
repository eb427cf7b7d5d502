package io.ortex.ep.cpu.ops.quantization;

import io.ortex.api.ElementType;
import io.ortex.api.HalfFloats;
import io.ortex.api.NotImplementedException;
import io.ortex.api.Tensor;
import io.ortex.api.spi.NodeView;
import io.ortex.api.spi.ValueView;
import io.ortex.ep.cpu.CpuKernel;
import io.ortex.ep.cpu.ops.math.MatMulKernel;
import io.ortex.ep.cpu.ops.nn.ConvKernel;
import io.ortex.ep.cpu.ops.nn.Window;
import io.ortex.ep.cpu.ops.support.Values;
import io.ortex.ep.cpu.ops.support.WorkingArrays;
import java.util.List;

/**
 * The integer and quantized products: MatMulInteger, QLinearMatMul, ConvInteger and QLinearConv. Zero points are
 * subtracted exactly in 64-bit integers (products) or doubles (convolutions, exact for these ranges); the
 * requantization scale is computed in the precision of the scale tensors, then the result is rounded half to even
 * and saturated to the output type, as ONNX's reference does.
 */
final class QuantizedProductKernels {
    private QuantizedProductKernels() {
    }

    static CpuKernel matMulInteger(NodeView node) {
        IntegerMatMul.Weights constant = constantWeights(node);
        return (in, ctx) -> {
            Tensor aZero = in.length > 2 ? in[2] : null;
            Tensor bZero = in.length > 3 ? in[3] : null;
            if (IntegerMatMul.fits(in[0], aZero, in[1], bZero)) {
                IntegerMatMul.Weights w = constant != null ? constant : IntegerMatMul.Weights.of(in[1], bZero);
                return new Tensor[] {IntegerMatMul.multiply(in[0], aZero, w, ctx)};
            }
            long[] a = centred(in[0], in.length > 2 ? in[2] : null, in[0].rank() >= 2 ? in[0].rank() - 2 : -1);
            long[] b = centred(in[1], in.length > 3 ? in[3] : null, in[1].rank() - 1);
            MatMulKernel.Dims d = MatMulKernel.dims(in[0].shape(), in[1].shape());
            return new Tensor[] {Values.fromLongs(ElementType.INT32, d.outShape(), MatMulKernel.longProduct(a, b, d))};
        };
    }

    /** B centred and packed at compile time, when it and its zero point are constant and the fast path takes them. */
    private static IntegerMatMul.Weights constantWeights(NodeView node) {
        List<ValueView> inputs = node.inputs();
        ValueView b = inputs.get(1);
        ValueView zero = inputs.size() > 3 ? inputs.get(3) : null;
        if (b == null || !b.isConstantInitializer() || zero != null && !zero.isConstantInitializer()) {
            return null;
        }
        Tensor bt = b.initializer().orElse(null);
        Tensor zt = zero == null ? null : zero.initializer().orElse(null);
        if (bt == null || zero != null && zt == null) {
            return null;
        }
        return IntegerMatMul.weightsFit(bt, zt) ? IntegerMatMul.Weights.of(bt, zt) : null;
    }

    static CpuKernel qlinearMatMul(NodeView node) {
        return (in, ctx) -> {
            Tensor a = in[0];
            Tensor b = in[3];
            long[] av = centred(a, in[2], a.rank() >= 2 ? a.rank() - 2 : -1);
            long[] bv = centred(b, in[5], b.rank() - 1);
            MatMulKernel.Dims d = MatMulKernel.dims(a.shape(), b.shape());
            long[] acc = MatMulKernel.longProduct(av, bv, d);
            if (in[1].size() != 1 || in[4].size() != 1 || in[6].size() != 1) {
                throw new NotImplementedException("QLinearMatMul supports per-tensor scales only");
            }
            double m = multiplier(in[1], 0, in[4], 0, in[6]);
            long zp = in[7] == null ? 0 : in[7].getLong(0);
            ElementType type = in[7] == null ? a.type() : in[7].type();
            return new Tensor[] {requantize(acc, i -> m, zp, type, d.outShape())};
        };
    }

    static CpuKernel convInteger(NodeView node) {
        Window.Attrs attrs = Window.attrs(node, false);
        int group = (int) node.intAttr("group", 1);
        return (in, ctx) -> {
            Tensor x = centredDoubles(in[0], in.length > 2 ? in[2] : null, -1);
            Tensor w = centredDoubles(in[1], in.length > 3 ? in[3] : null, 0);
            Tensor y = ConvKernel.conv(x, w, null, attrs, group, ctx);
            return new Tensor[] {Values.fromDoubles(ElementType.INT32, y.shape(), y.doubles())};
        };
    }

    static CpuKernel qlinearConv(NodeView node) {
        Window.Attrs attrs = Window.attrs(node, false);
        int group = (int) node.intAttr("group", 1);
        return (in, ctx) -> {
            Tensor x = centredDoubles(in[0], in[2], -1);
            Tensor w = centredDoubles(in[3], in[5], 0);
            Tensor bias = in.length > 8 && in[8] != null ? Tensor.ofDoubles(WorkingArrays.doubles(in[8]), in[8].shape())
                    : null;
            Tensor y = ConvKernel.conv(x, w, bias, attrs, group, ctx);
            if (in[1].size() != 1 || in[6].size() != 1) {
                throw new NotImplementedException("QLinearConv supports a per-tensor x_scale and y_scale only");
            }
            int cout = (int) y.dim(1);
            double[] m = new double[cout];
            for (int c = 0; c < cout; c++) {
                m[c] = multiplier(in[1], 0, in[4], in[4].size() == 1 ? 0 : c, in[6]);
            }
            int plane = WorkingArrays.product(y.shape(), 2, y.rank());
            double[] yv = y.doubles();
            long[] acc = new long[yv.length];
            for (int i = 0; i < acc.length; i++) {
                acc[i] = (long) yv[i];
            }
            long zp = in.length > 7 && in[7] != null ? in[7].getLong(0) : 0;
            ElementType type = in.length > 7 && in[7] != null ? in[7].type() : in[0].type();
            return new Tensor[] {requantize(acc, i -> m[(i / plane) % cout], zp, type, y.shape())};
        };
    }

    /** The values of an 8-bit tensor minus its zero point (scalar, or 1-D along {@code axis}). */
    private static long[] centred(Tensor t, Tensor zp, int axis) {
        long[] v = WorkingArrays.longs(t);
        if (zp == null || zp.size() == 0) {
            return v;
        }
        if (zp.size() == 1) {
            long z = zp.getLong(0);
            for (int i = 0; i < v.length; i++) {
                v[i] -= z;
            }
            return v;
        }
        if (axis < 0 || zp.size() != t.dim(axis)) {
            throw new NotImplementedException("zero point of shape [" + Tensor.shapeString(zp.shape())
                    + "] is not supported for input of shape [" + Tensor.shapeString(t.shape()) + "]");
        }
        int inner = WorkingArrays.product(t.shape(), axis + 1, t.rank());
        int len = (int) t.dim(axis);
        for (int i = 0; i < v.length; i++) {
            v[i] -= zp.getLong((i / inner) % len);
        }
        return v;
    }

    private static Tensor centredDoubles(Tensor t, Tensor zp, int axis) {
        long[] v = centred(t, zp, axis);
        double[] d = new double[v.length];
        for (int i = 0; i < d.length; i++) {
            d[i] = v[i];
        }
        return Tensor.ofDoubles(d, t.shape());
    }

    /** {@code a_scale * b_scale / y_scale} rounded like the scales' own type. */
    private static double multiplier(Tensor as, int ai, Tensor bs, int bi, Tensor ys) {
        if (as.type() == ElementType.FLOAT16) {
            float p = half(half(as.getDouble(ai)) * half(bs.getDouble(bi)));
            return half(p / half(ys.getDouble(0)));
        }
        if (as.type() == ElementType.DOUBLE) {
            return as.getDouble(ai) * bs.getDouble(bi) / ys.getDouble(0);
        }
        float p = (float) as.getDouble(ai) * (float) bs.getDouble(bi);
        return p / (float) ys.getDouble(0);
    }

    private static float half(double v) {
        return HalfFloats.float16ToFloat(HalfFloats.floatToFloat16((float) v));
    }

    private interface Multiplier {
        double at(int index);
    }

    private static Tensor requantize(long[] acc, Multiplier m, long zp, ElementType type, long[] shape) {
        long lo;
        long hi;
        switch (type) {
            case UINT8: lo = 0; hi = 255; break;
            case INT8: lo = -128; hi = 127; break;
            case UINT16: lo = 0; hi = 65535; break;
            case INT16: lo = -32768; hi = 32767; break;
            default: throw new NotImplementedException("quantized output type " + type + " is not supported");
        }
        long[] out = new long[acc.length];
        for (int i = 0; i < acc.length; i++) {
            double v = Math.rint(acc[i] * m.at(i)) + zp;
            out[i] = (long) Math.max(lo, Math.min(hi, v));
        }
        return Values.fromLongs(type, shape, out);
    }
}
