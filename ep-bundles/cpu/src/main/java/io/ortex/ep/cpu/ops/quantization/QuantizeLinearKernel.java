package io.ortex.ep.cpu.ops.quantization;

import io.ortex.api.ElementType;
import io.ortex.api.HalfFloats;
import io.ortex.api.InvalidArgumentException;
import io.ortex.api.InvalidModelException;
import io.ortex.api.NarrowFloats;
import io.ortex.api.NotImplementedException;
import io.ortex.api.Tensor;
import io.ortex.api.spi.KernelContext;
import io.ortex.api.spi.NodeView;
import io.ortex.ep.cpu.CpuKernel;
import io.ortex.ep.cpu.ops.support.Values;

/**
 * QuantizeLinear, opsets 10 to 25: {@code y = saturate(round(x / y_scale) + y_zero_point)} with rounding half to
 * even, per tensor, per axis (opset 13, attribute {@code axis}) or per block (opset 21, {@code block_size}).
 * Integer outputs (8- and 16-bit, 4- and 2-bit) clamp to their range; float8 outputs (opset 19) are the float8
 * conversion of {@code x / y_scale + y_zero_point} with the {@code saturate} attribute, and float4e2m1 outputs
 * always saturate. The output type is {@code output_dtype} (opset 21) when set, else the zero point's type, else
 * uint8. The division is done in the precision of the {@code precision} attribute's type when set, else in that
 * of the scale's type (float16 and bfloat16 operands and quotients are rounded to it).
 */
final class QuantizeLinearKernel implements CpuKernel {
    private final String name;
    private final long axis;
    private final long blockSize;
    private final boolean saturate;
    private final boolean perAxisAllowed;
    private final ElementType outputType;
    private final ElementType precision;

    private QuantizeLinearKernel(NodeView node, boolean perAxisAllowed) {
        this.name = node.opType();
        this.axis = node.intAttr("axis", 1);
        this.blockSize = node.intAttr("block_size", 0);
        this.saturate = node.intAttr("saturate", 1) != 0;
        this.perAxisAllowed = perAxisAllowed;
        this.outputType = optionalType(node, "output_dtype");
        this.precision = optionalType(node, "precision");
        if (outputType != null && !isQuantizedType(outputType)) {
            throw new NotImplementedException("QuantizeLinear attribute 'output_dtype' is " + outputType
                    + ", not a quantized type");
        }
        if (precision != null && !precision.isFloatingPoint()) {
            throw new NotImplementedException("QuantizeLinear attribute 'precision' is " + precision
                    + "; float32, float64, float16 and bfloat16 are supported");
        }
    }

    /**
     * Creates the kernel for a QuantizeLinear node.
     *
     * @param node the node
     * @param perAxisAllowed whether the node's opset allows per-axis scales (13 on)
     * @return the kernel
     */
    static CpuKernel create(NodeView node, boolean perAxisAllowed) {
        return new QuantizeLinearKernel(node, perAxisAllowed);
    }

    /**
     * Reads an optional attribute that names a data type; 0 or absent means none.
     *
     * @param node the node
     * @param attr the attribute name
     * @return the type, or {@code null}
     */
    static ElementType optionalType(NodeView node, String attr) {
        long code = node.intAttr(attr, 0);
        if (code == 0) {
            return null;
        }
        try {
            return ElementType.fromCode((int) code);
        } catch (InvalidArgumentException e) {
            throw new InvalidModelException(node.opType() + " attribute '" + attr + "' is " + code
                    + ", not an ONNX data type");
        }
    }

    /**
     * Tells whether a type can hold quantized values.
     *
     * @param t the type
     * @return true for the 8- and 16-bit integers, the narrow integers and the narrow floats except e8m0
     */
    static boolean isQuantizedType(ElementType t) {
        return t == ElementType.INT8 || t == ElementType.UINT8 || t == ElementType.INT16 || t == ElementType.UINT16
                || t.isNarrowInteger() || (t.isNarrowFloat() && t != ElementType.FLOAT8E8M0);
    }

    @Override
    public Tensor[] run(Tensor[] in, KernelContext ctx) {
        Tensor x = in[0];
        Tensor scale = in[1];
        Tensor zp = in.length > 2 ? in[2] : null;
        ElementType out = outputType(zp);
        if (x.type() != ElementType.FLOAT && !x.type().isFloatingPoint() && x.type() != ElementType.INT32) {
            throw new NotImplementedException(name + ": input 'x' has type " + x.type()
                    + "; float types and int32 are supported");
        }
        QuantGranularity g = QuantGranularity.of(name, x, scale, zp, axis, blockSize, perAxisAllowed);
        ElementType p = precision != null ? precision : scaleType(scale);
        Object result;
        if (out.isNarrowFloat()) {
            result = toFloats(x, scale, zp, g, p, out, ctx);
        } else if (x.type() == ElementType.FLOAT && p == ElementType.FLOAT && scale.type() == ElementType.FLOAT) {
            result = floatToIntegers(x.floats(), scale.floats(), zeroPoints(zp, scale.size()), g, out, ctx);
        } else {
            result = toIntegers(x, scale, zp, g, p, out, ctx);
        }
        return new Tensor[] {Tensor.of(out, x.shape(), result)};
    }

    private ElementType outputType(Tensor zp) {
        if (zp != null && outputType != null && zp.type() != outputType) {
            throw new InvalidArgumentException(name + ": the zero point has type " + zp.type()
                    + " but attribute 'output_dtype' says " + outputType);
        }
        ElementType t = outputType != null ? outputType : zp != null ? zp.type() : ElementType.UINT8;
        if (!isQuantizedType(t)) {
            throw new NotImplementedException(name + ": output type " + t + " is not a quantized type");
        }
        return t;
    }

    private static ElementType scaleType(Tensor scale) {
        ElementType t = scale.type();
        if (t.isFloatingPoint()) {
            return t;
        }
        // float8e8m0 and int32 scales divide in float32
        return ElementType.FLOAT;
    }

    /** The float32 path: float x and scale, integer output. */
    private static Object floatToIntegers(float[] x, float[] s, long[] zp, QuantGranularity g, ElementType out,
            KernelContext ctx) {
        long lo = out.minValue();
        long hi = out.maxValue();
        int inner = g.inner();
        int stride = g.innerStride();
        boolean bytes = out.storage() == byte[].class;
        byte[] b = bytes ? new byte[x.length] : null;
        short[] sh = bytes ? null : new short[x.length];
        ctx.parallelFor(g.rows(), Math.max(1, 16384 / Math.max(1, inner)), (from, to) -> {
            for (int row = from; row < to; row++) {
                int base = g.rowBase(row);
                int off = row * inner;
                for (int i = 0; i < inner; i++) {
                    int si = base + i * stride;
                    long v = (long) Math.rint(x[off + i] / s[si]) + zp[si];
                    v = v < lo ? lo : v > hi ? hi : v;
                    if (bytes) {
                        b[off + i] = (byte) v;
                    } else {
                        sh[off + i] = (short) v;
                    }
                }
            }
        });
        return bytes ? b : sh;
    }

    /** The general integer path: the quotient rounded to the division's precision, then to an integer. */
    private static Object toIntegers(Tensor x, Tensor scale, Tensor zp, QuantGranularity g, ElementType p,
            ElementType out, KernelContext ctx) {
        double[] xv = inPrecision(x, p);
        double[] sv = inPrecision(scale, p);
        long[] z = zeroPoints(zp, scale.size());
        long lo = out.minValue();
        long hi = out.maxValue();
        int inner = g.inner();
        int stride = g.innerStride();
        boolean bytes = out.storage() == byte[].class;
        byte[] b = bytes ? new byte[xv.length] : null;
        short[] sh = bytes ? null : new short[xv.length];
        ctx.parallelFor(g.rows(), Math.max(1, 16384 / Math.max(1, inner)), (from, to) -> {
            for (int row = from; row < to; row++) {
                int base = g.rowBase(row);
                int off = row * inner;
                for (int i = 0; i < inner; i++) {
                    int si = base + i * stride;
                    long v = (long) Math.rint(round(xv[off + i] / sv[si], p)) + z[si];
                    v = v < lo ? lo : v > hi ? hi : v;
                    if (bytes) {
                        b[off + i] = (byte) v;
                    } else {
                        sh[off + i] = (short) v;
                    }
                }
            }
        });
        return bytes ? b : sh;
    }

    /** The float8 and float4 path: {@code x / scale + zero point}, converted with saturation. */
    private Object toFloats(Tensor x, Tensor scale, Tensor zp, QuantGranularity g, ElementType p, ElementType out,
            KernelContext ctx) {
        double[] xv = inPrecision(x, p);
        double[] sv = inPrecision(scale, p);
        double[] z = zp == null ? new double[scale.size()] : Values.toDoubles(zp);
        int inner = g.inner();
        int stride = g.innerStride();
        byte[] b = new byte[xv.length];
        boolean sat = saturate;
        ctx.parallelFor(g.rows(), Math.max(1, 16384 / Math.max(1, inner)), (from, to) -> {
            for (int row = from; row < to; row++) {
                int base = g.rowBase(row);
                int off = row * inner;
                for (int i = 0; i < inner; i++) {
                    int si = base + i * stride;
                    b[off + i] = NarrowFloats.fromDouble(out, round(xv[off + i] / sv[si], p) + z[si], sat);
                }
            }
        });
        return b;
    }

    /**
     * Reads the zero points as longs, zeros when there is none.
     *
     * @param zp the zero point tensor of an integer type, or {@code null}
     * @param count the number of scales
     * @return the zero points
     */
    static long[] zeroPoints(Tensor zp, int count) {
        if (zp == null) {
            return new long[count];
        }
        long[] z = new long[zp.size()];
        for (int i = 0; i < z.length; i++) {
            z[i] = zp.getLong(i);
        }
        return z;
    }

    /** Reads values as doubles rounded to a precision type. */
    private static double[] inPrecision(Tensor t, ElementType p) {
        double[] v = Values.toDoubles(t);
        if (p == ElementType.DOUBLE) {
            return v;
        }
        double[] r = new double[v.length];
        for (int i = 0; i < v.length; i++) {
            r[i] = round(v[i], p);
        }
        return r;
    }

    /** Rounds a double to the nearest value of a floating-point type (float64 keeps it). */
    private static double round(double v, ElementType p) {
        switch (p) {
            case FLOAT: return (float) v;
            case FLOAT16: return HalfFloats.float16ToFloat(HalfFloats.floatToFloat16((float) v));
            case BFLOAT16: return HalfFloats.bfloat16ToFloat(HalfFloats.floatToBfloat16((float) v));
            default: return v;
        }
    }
}
