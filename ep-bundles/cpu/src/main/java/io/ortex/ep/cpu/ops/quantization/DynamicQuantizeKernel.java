package io.ortex.ep.cpu.ops.quantization;

import io.ortex.api.ElementType;
import io.ortex.api.NotImplementedException;
import io.ortex.api.Tensor;
import io.ortex.api.spi.KernelContext;
import io.ortex.ep.cpu.CpuKernel;

/**
 * DynamicQuantizeLinear (opset 11): quantizes a float32 tensor to uint8 with a scale and zero point computed from
 * its range widened to include 0: {@code scale = (max - min) / 255}, {@code zero_point = round(clamp(-min / scale,
 * 0, 255))}, {@code y = clamp(round(x / scale) + zero_point, 0, 255)}, rounding half to even in float32 as ONNX's
 * reference does. An all-zero (or empty) input has scale 0, zero point 0 and output 0.
 */
final class DynamicQuantizeKernel implements CpuKernel {
    private static final float QMAX = 255f;

    @Override
    public Tensor[] run(Tensor[] in, KernelContext ctx) {
        Tensor x = in[0];
        if (x.type() != ElementType.FLOAT) {
            throw new NotImplementedException("DynamicQuantizeLinear: input 'x' has type " + x.type()
                    + "; only float32 is defined");
        }
        float[] v = x.floats();
        float min = 0;
        float max = 0;
        for (float f : v) {
            min = Math.min(min, f);
            max = Math.max(max, f);
        }
        float scale = (max - min) / QMAX;
        byte[] y = new byte[v.length];
        int zeroPoint = 0;
        if (scale != 0 && !Float.isNaN(scale)) {
            float zp = 0 - min / scale;
            zeroPoint = (int) Math.rint(Math.min(Math.max(zp, 0f), QMAX));
            int z = zeroPoint;
            float s = scale;
            ctx.parallelFor(v.length, 16384, (from, to) -> {
                for (int i = from; i < to; i++) {
                    double q = Math.rint(v[i] / s) + z;
                    y[i] = (byte) (int) (q < 0 ? 0 : q > QMAX ? QMAX : q);
                }
            });
        }
        return new Tensor[] {Tensor.of(ElementType.UINT8, x.shape(), y),
            Tensor.ofFloats(new float[] {scale}, new long[0]),
            Tensor.of(ElementType.UINT8, new long[0], new byte[] {(byte) zeroPoint})};
    }
}
