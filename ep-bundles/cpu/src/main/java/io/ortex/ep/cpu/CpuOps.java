package io.ortex.ep.cpu;

import io.ortex.ep.cpu.ops.ElementwiseOps;
import io.ortex.ep.cpu.ops.NnOps;
import io.ortex.ep.cpu.ops.NormOps;
import io.ortex.ep.cpu.ops.QuantizeOps;
import io.ortex.ep.cpu.ops.ReduceOps;
import io.ortex.ep.cpu.ops.ShapeOps;

/** Builds the CPU EP's operator table from the op groups. */
final class CpuOps {
    private CpuOps() {
    }

    static OpRegistry registry() {
        OpRegistry r = new OpRegistry();
        ElementwiseOps.register(r);
        ShapeOps.register(r);
        ReduceOps.register(r);
        NnOps.register(r);
        NormOps.register(r);
        QuantizeOps.register(r);
        return r;
    }
}
