package io.ortex.ep.cpu.ops.tensor;

import io.ortex.api.ElementType;
import io.ortex.api.InvalidArgumentException;
import io.ortex.api.InvalidModelException;
import io.ortex.api.NotImplementedException;
import io.ortex.api.Tensor;
import io.ortex.api.spi.KernelContext;
import io.ortex.api.spi.NodeView;
import io.ortex.ep.cpu.CpuKernel;
import io.ortex.ep.cpu.ops.support.Values;

/**
 * BitCast (opset 26): reinterprets each element's bits as the type named by {@code to}, which must have the same
 * bit width; the shape is kept. Bools are the byte 0 or 1 (any non-zero byte reads as true); the 4- and 2-bit
 * types are their low bits, sign-extended when the target is int4 or int2.
 */
final class BitCastKernel implements CpuKernel {
    private final ElementType to;

    private BitCastKernel(ElementType to) {
        this.to = to;
    }

    /**
     * Creates the kernel for a BitCast node.
     *
     * @param node the node
     * @return the kernel
     */
    static CpuKernel create(NodeView node) {
        if (node.attribute("to").isEmpty()) {
            throw new InvalidModelException("BitCast needs the attribute 'to'");
        }
        ElementType to = ElementType.fromCode((int) node.intAttr("to", 0));
        if (to == ElementType.STRING || !to.isSupported()) {
            throw new NotImplementedException("BitCast attribute 'to' is " + to + ", which is not supported");
        }
        return new BitCastKernel(to);
    }

    @Override
    public Tensor[] run(Tensor[] in, KernelContext ctx) {
        Tensor x = in[0];
        ElementType from = x.type();
        if (from == ElementType.STRING || from.bitWidth() != to.bitWidth()) {
            throw new InvalidArgumentException("BitCast from " + from + " (" + from.bitWidth() + " bits) to " + to
                    + " (" + to.bitWidth() + " bits): the widths must be equal");
        }
        if (from == to) {
            return new Tensor[] {x};
        }
        int n = x.size();
        long[] bits = new long[n];
        for (int i = 0; i < n; i++) {
            bits[i] = bitsOf(x, i);
        }
        return new Tensor[] {fromBits(bits, x.shape())};
    }

    private static long bitsOf(Tensor x, int i) {
        Object d = x.data();
        if (d instanceof float[] f) {
            return Float.floatToRawIntBits(f[i]);
        }
        if (d instanceof double[] a) {
            return Double.doubleToRawLongBits(a[i]);
        }
        if (d instanceof boolean[] b) {
            return b[i] ? 1 : 0;
        }
        return x.getLong(i);
    }

    private Tensor fromBits(long[] bits, long[] shape) {
        int n = bits.length;
        switch (to) {
            case FLOAT: {
                float[] f = new float[n];
                for (int i = 0; i < n; i++) {
                    f[i] = Float.intBitsToFloat((int) bits[i]);
                }
                return Tensor.of(to, shape, f);
            }
            case DOUBLE: {
                double[] a = new double[n];
                for (int i = 0; i < n; i++) {
                    a[i] = Double.longBitsToDouble(bits[i]);
                }
                return Tensor.of(to, shape, a);
            }
            case BOOL: {
                boolean[] b = new boolean[n];
                for (int i = 0; i < n; i++) {
                    b[i] = (bits[i] & 0xff) != 0;
                }
                return Tensor.of(to, shape, b);
            }
            case FLOAT16: case BFLOAT16: case INT16: case UINT16: {
                short[] s = new short[n];
                for (int i = 0; i < n; i++) {
                    s[i] = (short) bits[i];
                }
                return Tensor.of(to, shape, s);
            }
            default:
                break;
        }
        if (to.storage() == byte[].class) {
            int width = to.bitWidth();
            boolean signed = to == ElementType.INT4 || to == ElementType.INT2;
            byte[] b = new byte[n];
            for (int i = 0; i < n; i++) {
                long w = bits[i] << (64 - width);
                b[i] = (byte) (signed ? w >> (64 - width) : w >>> (64 - width));
            }
            return Tensor.of(to, shape, b);
        }
        return Values.fromLongs(to, shape, bits);
    }
}
