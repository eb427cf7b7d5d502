package io.ortex.ep.cpu.ops.quantization;

import io.ortex.api.ElementType;
import io.ortex.api.InvalidArgumentException;
import io.ortex.api.NotImplementedException;
import io.ortex.api.Tensor;
import io.ortex.api.spi.KernelContext;
import io.ortex.api.spi.NodeView;
import io.ortex.ep.cpu.CpuKernel;
import io.ortex.ep.cpu.ops.support.NarrowValues;
import io.ortex.ep.cpu.ops.support.Values;

/**
 * DequantizeLinear, opsets 10 to 25: {@code y = (x - x_zero_point) * x_scale}, per tensor, per axis (opset 13) or
 * per block (opset 21). {@code x} may be any quantized type (8- and 16-bit integers, int32, the 4- and 2-bit
 * integers, the float8 types and float4e2m1). As in ONNX's reference, {@code x} and the zero point are read as
 * float32, subtracted and multiplied in float32 (float64 for a float64 scale), and the product is rounded once to
 * the output type: {@code output_dtype} when set, otherwise the scale's type.
 */
final class DequantizeLinearKernel implements CpuKernel {
    private final String name;
    private final long axis;
    private final long blockSize;
    private final boolean perAxisAllowed;
    private final ElementType outputType;

    private DequantizeLinearKernel(NodeView node, boolean perAxisAllowed) {
        this.name = node.opType();
        this.axis = node.intAttr("axis", 1);
        this.blockSize = node.intAttr("block_size", 0);
        this.perAxisAllowed = perAxisAllowed;
        this.outputType = QuantizeLinearKernel.optionalType(node, "output_dtype");
        if (outputType != null && !outputType.isFloatingPoint()) {
            throw new NotImplementedException("DequantizeLinear attribute 'output_dtype' is " + outputType
                    + "; float32, float64, float16 and bfloat16 are supported");
        }
    }

    /**
     * Creates the kernel for a DequantizeLinear node.
     *
     * @param node the node
     * @param perAxisAllowed whether the node's opset allows per-axis scales (13 on)
     * @return the kernel
     */
    static CpuKernel create(NodeView node, boolean perAxisAllowed) {
        return new DequantizeLinearKernel(node, perAxisAllowed);
    }

    @Override
    public Tensor[] run(Tensor[] in, KernelContext ctx) {
        Tensor x = in[0];
        Tensor scale = in[1];
        Tensor zp = in.length > 2 ? in[2] : null;
        if (zp != null && zp.type() != x.type()) {
            throw new InvalidArgumentException(name + ": the zero point has type " + zp.type() + ", x has "
                    + x.type() + "; they must be equal");
        }
        ElementType st = scale.type();
        ElementType out = outputType != null ? outputType : st;
        if (!out.isFloatingPoint()) {
            throw new NotImplementedException(name + ": scale type " + st + " cannot be the output type; set "
                    + "'output_dtype'");
        }
        QuantGranularity g = QuantGranularity.of(name, x, scale, zp, axis, blockSize, perAxisAllowed);
        if (st == ElementType.DOUBLE) {
            double[] y = dequantizeDoubles(Values.toDoubles(x), Values.toDoubles(scale),
                    zp == null ? new double[scale.size()] : Values.toDoubles(zp), g, ctx);
            return new Tensor[] {Values.fromDoubles(out, x.shape(), y)};
        }
        float[] y = dequantizeFloats(asFloats(x), asFloats(scale), zp == null ? new float[scale.size()]
                : asFloats(zp), g, ctx);
        return new Tensor[] {Values.fromFloats(out, x.shape(), y)};
    }

    /** Reads any numeric tensor as float32 values (float32 gives its own array, read only). */
    private static float[] asFloats(Tensor t) {
        if (t.type().isNarrowFloat()) {
            return NarrowValues.floats(t);
        }
        if (t.type() == ElementType.FLOAT) {
            return t.floats();
        }
        if (t.type() == ElementType.UINT8 || t.type() == ElementType.INT8 || t.type().isNarrowInteger()) {
            byte[] b = t.bytes();
            float[] f = new float[b.length];
            if (t.type() == ElementType.UINT8) {
                for (int i = 0; i < b.length; i++) {
                    f[i] = b[i] & 0xff;
                }
            } else {
                for (int i = 0; i < b.length; i++) {
                    f[i] = b[i];
                }
            }
            return f;
        }
        return Values.toFloats(t);
    }

    private static float[] dequantizeFloats(float[] x, float[] s, float[] z, QuantGranularity g,
            KernelContext ctx) {
        float[] y = new float[x.length];
        int inner = g.inner();
        int stride = g.innerStride();
        ctx.parallelFor(g.rows(), Math.max(1, 16384 / Math.max(1, inner)), (from, to) -> {
            for (int row = from; row < to; row++) {
                int base = g.rowBase(row);
                int off = row * inner;
                for (int i = 0; i < inner; i++) {
                    int si = base + i * stride;
                    y[off + i] = (x[off + i] - z[si]) * s[si];
                }
            }
        });
        return y;
    }

    private static double[] dequantizeDoubles(double[] x, double[] s, double[] z, QuantGranularity g,
            KernelContext ctx) {
        double[] y = new double[x.length];
        int inner = g.inner();
        int stride = g.innerStride();
        ctx.parallelFor(g.rows(), Math.max(1, 16384 / Math.max(1, inner)), (from, to) -> {
            for (int row = from; row < to; row++) {
                int base = g.rowBase(row);
                int off = row * inner;
                for (int i = 0; i < inner; i++) {
                    int si = base + i * stride;
                    y[off + i] = (x[off + i] - z[si]) * s[si];
                }
            }
        });
        return y;
    }
}
