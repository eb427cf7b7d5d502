package io.ortex.ep.cpu.ops;

import io.ortex.ep.cpu.OpRegistry;

/** Neural-network ops: matrix products, convolution, pooling and resizing. */
public final class NnOps {
    private NnOps() {
    }

    /**
     * Registers this group's ops.
     *
     * @param r the registry
     */
    public static void register(OpRegistry r) {
        r.register("MatMul", MatMulOp::create);
        r.register("Gemm", GemmOp::create);
        r.register("Conv", ConvOp::create);
        r.register("ConvTranspose", ConvTransposeOp::create);
        r.register("MaxPool", node -> PoolOp.create(node, PoolOp.Kind.MAX));
        r.register("AveragePool", node -> PoolOp.create(node, PoolOp.Kind.AVERAGE));
        r.register("LpPool", node -> PoolOp.create(node, PoolOp.Kind.LP));
        r.register("GlobalMaxPool", node -> GlobalPoolOp.create(node, PoolOp.Kind.MAX));
        r.register("GlobalAveragePool", node -> GlobalPoolOp.create(node, PoolOp.Kind.AVERAGE));
        r.register("GlobalLpPool", node -> GlobalPoolOp.create(node, PoolOp.Kind.LP));
        r.register("", "Resize", 10, ResizeOp::resize);
        r.register("", "Upsample", 7, ResizeOp::upsample);
        r.register("Einsum", EinsumOp::create);
        r.register("MaxUnpool", MaxUnpoolOp::create);
        r.register("MatMulInteger", QuantizedOps::matMulInteger);
        r.register("QLinearMatMul", QuantizedOps::qlinearMatMul);
        r.register("ConvInteger", QuantizedOps::convInteger);
        r.register("QLinearConv", QuantizedOps::qlinearConv);
    }
}
