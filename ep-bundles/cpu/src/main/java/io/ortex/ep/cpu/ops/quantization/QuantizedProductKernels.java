package io.ortex.ep.cpu.ops.quantization;

import io.ortex.api.ElementType;
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
 * The integer and quantized products: MatMulInteger, QLinearMatMul, ConvInteger and QLinearConv. 8-bit operands with
 * the zero points ONNX Runtime takes (one value, one per row of A, one per column of B or per output channel of W) run
 * exactly on the float kernels ({@link IntegerMatMul}, {@link IntegerConv}), their constant weights centred and packed
 * once when the node is compiled; QLinearMatMul and QLinearConv then requantize ({@link Requantization}). Other
 * operands (16-bit types, batched B, per-channel input zero points) take a generic path in 64-bit integers (products)
 * or doubles (convolutions, exact for these ranges).
 */
final class QuantizedProductKernels {
    private QuantizedProductKernels() {
    }

    static CpuKernel matMulInteger(NodeView node) {
        IntegerMatMul.Weights constant = constantWeights(node, 1, 3);
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
    private static IntegerMatMul.Weights constantWeights(NodeView node, int bIndex, int zeroIndex) {
        List<ValueView> inputs = node.inputs();
        ValueView b = inputs.size() > bIndex ? inputs.get(bIndex) : null;
        ValueView zero = inputs.size() > zeroIndex ? inputs.get(zeroIndex) : null;
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
        IntegerMatMul.Weights constant = constantWeights(node, 3, 5);
        return (in, ctx) -> {
            Tensor a = in[0];
            Tensor b = in[3];
            if (in[1].size() != 1 || in[6].size() != 1) {
                throw new NotImplementedException("QLinearMatMul supports a per-tensor a_scale and y_scale only");
            }
            ElementType type = in[7] == null ? a.type() : in[7].type();
            boolean perColumn = b.rank() == 2 && in[4].rank() <= 1 && in[4].size() == b.dim(1);
            if (IntegerMatMul.fits(a, in[2], b, in[5]) && Requantization.supports(type)
                    && (in[4].size() == 1 || perColumn)) {
                IntegerMatMul.Weights w = constant != null ? constant : IntegerMatMul.Weights.of(b, in[5]);
                Tensor acc = IntegerMatMul.multiply(a, in[2], w, ctx);
                Requantization r = Requantization.of(in[1], in[4], in[6], in[7], type, w.n());
                int rows = w.n() == 0 ? 0 : acc.size() / w.n();
                return new Tensor[] {r.apply(acc.ints(), rows, 1, acc.shape(), ctx)};
            }
            if (in[4].size() != 1) {
                throw new NotImplementedException("QLinearMatMul supports a per-column b_scale only for a matrix B");
            }
            long[] av = centred(a, in[2], a.rank() >= 2 ? a.rank() - 2 : -1);
            long[] bv = centred(b, in[5], b.rank() - 1);
            MatMulKernel.Dims d = MatMulKernel.dims(a.shape(), b.shape());
            long[] acc = MatMulKernel.longProduct(av, bv, d);
            double m = Requantization.multiplier(in[1], 0, in[4], 0, in[6]);
            long zp = in[7] == null ? 0 : in[7].getLong(0);
            return new Tensor[] {requantize(acc, i -> m, zp, type, d.outShape())};
        };
    }

    static CpuKernel convInteger(NodeView node) {
        Window.Attrs attrs = Window.attrs(node, false);
        int group = (int) node.intAttr("group", 1);
        IntegerConv constant = constantConv(node, attrs, group, 1, 3);
        return (in, ctx) -> {
            Tensor xZero = in.length > 2 ? in[2] : null;
            Tensor wZero = in.length > 3 ? in[3] : null;
            IntegerConv conv = fastConv(constant, attrs, group, in[0], xZero, in[1], wZero);
            if (conv != null) {
                return new Tensor[] {conv.run(in[0], xZero, null, ctx)};
            }
            Tensor x = centredDoubles(in[0], xZero, -1);
            Tensor w = centredDoubles(in[1], wZero, 0);
            Tensor y = ConvKernel.conv(x, w, null, attrs, group, ctx);
            return new Tensor[] {Values.fromDoubles(ElementType.INT32, y.shape(), y.doubles())};
        };
    }

    static CpuKernel qlinearConv(NodeView node) {
        Window.Attrs attrs = Window.attrs(node, false);
        int group = (int) node.intAttr("group", 1);
        IntegerConv constant = constantConv(node, attrs, group, 3, 5);
        return (in, ctx) -> {
            if (in[1].size() != 1 || in[6].size() != 1) {
                throw new NotImplementedException("QLinearConv supports a per-tensor x_scale and y_scale only");
            }
            Tensor bias = in.length > 8 ? in[8] : null;
            Tensor yZero = in.length > 7 ? in[7] : null;
            ElementType type = yZero != null ? yZero.type() : in[0].type();
            IntegerConv conv = Requantization.supports(type) && (in[4].size() == 1 || in[4].size() == in[3].dim(0))
                    ? fastConv(constant, attrs, group, in[0], in[2], in[3], in[5]) : null;
            if (conv != null) {
                Tensor acc = conv.run(in[0], in[2], bias, ctx);
                int cout = (int) acc.dim(1);
                Requantization r = Requantization.of(in[1], in[4], in[6], yZero, type, cout);
                int plane = cout == 0 || acc.size() == 0 ? 0 : (int) (acc.size() / acc.dim(0) / cout);
                return new Tensor[] {r.apply(acc.ints(), (int) acc.dim(0), plane, acc.shape(), ctx)};
            }
            Tensor x = centredDoubles(in[0], in[2], -1);
            Tensor w = centredDoubles(in[3], in[5], 0);
            Tensor b = bias != null ? Tensor.ofDoubles(WorkingArrays.doubles(bias), bias.shape()) : null;
            Tensor y = ConvKernel.conv(x, w, b, attrs, group, ctx);
            int cout = (int) y.dim(1);
            double[] m = new double[cout];
            for (int c = 0; c < cout; c++) {
                m[c] = Requantization.multiplier(in[1], 0, in[4], in[4].size() == 1 ? 0 : c, in[6]);
            }
            int plane = WorkingArrays.product(y.shape(), 2, y.rank());
            double[] yv = y.doubles();
            long[] acc = new long[yv.length];
            for (int i = 0; i < acc.length; i++) {
                acc[i] = (long) yv[i];
            }
            long zp = yZero != null ? yZero.getLong(0) : 0;
            return new Tensor[] {requantize(acc, i -> m[(i / plane) % cout], zp, type, y.shape())};
        };
    }

    /** The integer convolution prepared at compile time, when the weights and their zero point are constant. */
    private static IntegerConv constantConv(NodeView node, Window.Attrs attrs, int group, int wIndex,
                                            int zeroIndex) {
        Tensor w = constantInput(node, wIndex);
        boolean hasZero = node.inputs().size() > zeroIndex && node.inputs().get(zeroIndex) != null;
        Tensor zero = hasZero ? constantInput(node, zeroIndex) : null;
        if (w == null || hasZero && zero == null || !IntegerConv.weightsFit(w, zero) || group < 1) {
            return null;
        }
        try {
            return IntegerConv.prepare(attrs, group, w, zero);
        } catch (RuntimeException e) {
            // weights the convolution refuses: the run reports it with the input's shape
            return null;
        }
    }

    /** The integer convolution for these inputs, or {@code null} when they need the generic path. */
    private static IntegerConv fastConv(IntegerConv constant, Window.Attrs attrs, int group, Tensor x, Tensor xZero,
                                        Tensor w, Tensor wZero) {
        if (!IntegerConv.inputFits(x, xZero) || !IntegerConv.weightsFit(w, wZero) || x.rank() != w.rank()) {
            return null;
        }
        return constant != null ? constant : IntegerConv.prepare(attrs, group, w, wZero);
    }

    private static Tensor constantInput(NodeView node, int index) {
        if (node.inputs().size() <= index) {
            return null;
        }
        ValueView v = node.inputs().get(index);
        if (v == null || !v.isConstantInitializer()) {
            return null;
        }
        return v.initializer().orElse(null);
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
