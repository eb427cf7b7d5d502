package io.ortex.ep.cpu.ops;

import io.ortex.ep.cpu.OpRegistry;

/**
 * The quantization op group: QuantizeLinear and DequantizeLinear (opsets 10 to 25: per tensor, per axis, blocked;
 * 8- and 16-bit integers, the 4- and 2-bit integers, the float8 types and float4e2m1), DynamicQuantizeLinear
 * (opset 11) and BitCast (opset 26). This class only registers the ops; the kernels live in their own classes.
 */
public final class QuantizeOps {
    private QuantizeOps() {
    }

    /**
     * Registers the group's ops.
     *
     * @param r the registry
     */
    public static void register(OpRegistry r) {
        r.register("", "QuantizeLinear", 10, QuantizeLinearKernel::create);
        r.register("", "DequantizeLinear", 10, DequantizeLinearKernel::create);
        r.register("", "DynamicQuantizeLinear", 11, node -> new DynamicQuantizeKernel());
        r.register("", "BitCast", 26, BitCastKernel::create);
    }
}
