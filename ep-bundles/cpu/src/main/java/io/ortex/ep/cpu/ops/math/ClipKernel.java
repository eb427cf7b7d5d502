package io.ortex.ep.cpu.ops.math;

import io.ortex.api.ElementType;
import io.ortex.api.InvalidArgumentException;
import io.ortex.api.NotImplementedException;
import io.ortex.api.Tensor;
import io.ortex.api.spi.KernelContext;
import io.ortex.api.spi.NodeView;
import io.ortex.ep.cpu.CpuKernel;
import io.ortex.ep.cpu.ops.support.Values;

/**
 * Clip: {@code min(max(x, lo), hi)}. Before opset 11 the bounds are the float attributes {@code min} and
 * {@code max}; from opset 11 they are optional scalar inputs of the input's type (integers from opset 12).
 */
final class ClipKernel {
    private ClipKernel() {
    }

    /**
     * Creates the kernel for a Clip node of opsets 1 to 10, whose bounds are the attributes {@code min} and
     * {@code max}.
     *
     * @param node the node
     * @return the kernel
     */
    static CpuKernel fromAttributes(NodeView node) {
        float lo = node.floatAttr("min", -Float.MAX_VALUE);
        float hi = node.floatAttr("max", Float.MAX_VALUE);
        return (in, ctx) -> new Tensor[] {clip(in[0], lo, hi, lo, hi, ctx)};
    }

    /**
     * Creates the kernel for a Clip node from opset 11, whose bounds are the optional inputs {@code min} and
     * {@code max}.
     *
     * @param node the node
     * @return the kernel
     */
    static CpuKernel fromInputs(NodeView node) {
        return (in, ctx) -> {
            Tensor x = in[0];
            Tensor lo = in.length > 1 ? in[1] : null;
            Tensor hi = in.length > 2 ? in[2] : null;
            check(x, lo, "min");
            check(x, hi, "max");
            if (x.type().isInteger()) {
                return new Tensor[] {clipIntegers(x, lo, hi)};
            }
            double dlo = lo == null ? Double.NEGATIVE_INFINITY : lo.getDouble(0);
            double dhi = hi == null ? Double.POSITIVE_INFINITY : hi.getDouble(0);
            float flo = lo == null ? Float.NEGATIVE_INFINITY : (float) dlo;
            float fhi = hi == null ? Float.POSITIVE_INFINITY : (float) dhi;
            return new Tensor[] {clip(x, flo, fhi, dlo, dhi, ctx)};
        };
    }

    private static void check(Tensor x, Tensor bound, String name) {
        if (bound == null) {
            return;
        }
        if (bound.type() != x.type()) {
            throw new InvalidArgumentException("Clip input '" + name + "' has type " + bound.type()
                    + ", the input has " + x.type());
        }
        if (bound.size() != 1) {
            throw new InvalidArgumentException("Clip input '" + name + "' must be a scalar, got shape "
                    + Tensor.shapeString(bound.shape()));
        }
    }

    private static Tensor clip(Tensor x, float flo, float fhi, double dlo, double dhi, KernelContext ctx) {
        if (x.type() == ElementType.DOUBLE) {
            double[] v = x.doubles();
            double[] out = new double[v.length];
            for (int i = 0; i < v.length; i++) {
                out[i] = MathFunctions.apply(UnaryOp.CLIP, v[i], dlo, dhi);
            }
            return Tensor.ofDoubles(out, x.shape());
        }
        if (!x.type().isFloatingPoint()) {
            throw new NotImplementedException("Clip is not implemented for " + x.type() + " at this opset");
        }
        return UnaryKernels.apply("Clip", UnaryOp.CLIP, x, flo, fhi, ctx);
    }

    private static Tensor clipIntegers(Tensor x, Tensor lo, Tensor hi) {
        long[] v = Values.toLongs(x);
        boolean u64 = x.type() == ElementType.UINT64;
        long bias = u64 ? Long.MIN_VALUE : 0;
        long l = lo == null ? Long.MIN_VALUE : lo.getLong(0) ^ bias;
        long h = hi == null ? Long.MAX_VALUE : hi.getLong(0) ^ bias;
        long[] out = new long[v.length];
        for (int i = 0; i < v.length; i++) {
            long c = v[i] ^ bias;
            c = c < l ? l : c;
            c = c > h ? h : c;
            out[i] = c ^ bias;
        }
        return Values.fromLongs(x.type(), x.shape(), out);
    }
}
