package io.ortex.ep.cpu.ops.quantization;

import io.ortex.ep.cpu.OpRegistry;

/**
 * Registers the quantization ops: QuantizeLinear and DequantizeLinear (opsets 10 to 25: per tensor, per axis from
 * 13, blocked from 21; 8- and 16-bit integers, the 4- and 2-bit integers, the float8 types and float4e2m1),
 * DynamicQuantizeLinear (opset 11) and the integer and quantized products MatMulInteger, QLinearMatMul,
 * ConvInteger and QLinearConv.
 */
public final class QuantizationOps {
    private QuantizationOps() {
    }

    /**
     * Registers this category's ops.
     *
     * @param r the registry
     */
    public static void register(OpRegistry r) {
        r.register("", "QuantizeLinear", 10, 12, node -> QuantizeLinearKernel.create(node, false));
        r.register("", "QuantizeLinear", 13, node -> QuantizeLinearKernel.create(node, true));
        r.register("", "DequantizeLinear", 10, 12, node -> DequantizeLinearKernel.create(node, false));
        r.register("", "DequantizeLinear", 13, node -> DequantizeLinearKernel.create(node, true));
        r.register("", "DynamicQuantizeLinear", 11, node -> new DynamicQuantizeKernel());
        r.register("MatMulInteger", QuantizedProductKernels::matMulInteger);
        r.register("QLinearMatMul", QuantizedProductKernels::qlinearMatMul);
        r.register("ConvInteger", QuantizedProductKernels::convInteger);
        r.register("QLinearConv", QuantizedProductKernels::qlinearConv);
    }
}
