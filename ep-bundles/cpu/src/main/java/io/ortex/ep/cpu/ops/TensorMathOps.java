package io.ortex.ep.cpu.ops;

import io.ortex.ep.cpu.OpRegistry;

/** Numeric ops that fit no other group: CumProd, LpNormalization and Det. */
public final class TensorMathOps {
    private TensorMathOps() {
    }

    /**
     * Registers this group's ops.
     *
     * @param r the registry
     */
    public static void register(OpRegistry r) {
        r.register("", "CumProd", 26, TensorMathKernels::cumProd);
        r.register("", "LpNormalization", 1, TensorMathKernels::lpNormalization);
        r.register("", "Det", 11, TensorMathKernels::det);
    }
}
