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
    }
}
