package io.ortex.ep.cpu.ops.quantization;

import io.ortex.api.ElementType;
import io.ortex.api.NotImplementedException;
import io.ortex.api.Tensor;
import io.ortex.api.spi.KernelContext;
import io.ortex.ep.cpu.CpuKernel;
import io.ortex.ep.cpu.linalg.Quantize;

/**
 * DynamicQuantizeLinear (opset 11): quantizes a float32 tensor to uint8 with a scale and zero point computed from
 * its range widened to include 0: {@code scale = (max - min) / 255}, {@code zero_point = round(clamp(-min / scale,
 * 0, 255))}, {@code y = clamp(round(x / scale) + zero_point, 0, 255)}, rounding half to even in float32 as ONNX's
 * reference does. An all-zero (or empty) input has scale 0, zero point 0 and output 0.
 */
final class DynamicQuantizeKernel implements CpuKernel {
    @Override
    public Tensor[] run(Tensor[] in, KernelContext ctx) {
        Tensor x = in[0];
        if (x.type() != ElementType.FLOAT) {
            throw new NotImplementedException("DynamicQuantizeLinear: input 'x' has type " + x.type()
                    + "; only float32 is defined");
        }
        float[] v = x.floats();
        float[] range = Quantize.range(v, 0, v.length);
        float scale = scaleOf(range);
        byte[] y = new byte[v.length];
        int zeroPoint = 0;
        if (scale != 0 && !Float.isNaN(scale)) {
            zeroPoint = zeroPointOf(range, scale);
            int z = zeroPoint;
            float s = scale;
            ctx.parallelFor(v.length, 16384, (from, to) -> Quantize.toBytes(v, from, to - from, s, z, y, from));
        }
        return new Tensor[] {Tensor.of(ElementType.UINT8, x.shape(), y),
            Tensor.ofFloats(new float[] {scale}, new long[0]),
            Tensor.of(ElementType.UINT8, new long[0], new byte[] {(byte) zeroPoint})};
    }

    /**
     * The scale of a range: {@code (max - min) / 255} in float32.
     *
     * @param range {@code {min, max}}, min at most 0 and max at least 0
     * @return the scale: 0 for an all-zero input, NaN when a value is NaN
     */
    static float scaleOf(float[] range) {
        return (range[1] - range[0]) / Quantize.QMAX;
    }

    /**
     * The zero point of a range: {@code round(clamp(-min / scale, 0, 255))}, half to even.
     *
     * @param range {@code {min, max}}
     * @param scale its scale, neither 0 nor NaN
     * @return the zero point, in [0, 255]
     */
    static int zeroPointOf(float[] range, float scale) {
        float zp = 0 - range[0] / scale;
        return (int) Math.rint(Math.min(Math.max(zp, 0f), Quantize.QMAX));
    }
}
