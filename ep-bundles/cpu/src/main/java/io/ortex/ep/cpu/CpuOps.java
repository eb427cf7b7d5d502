package io.ortex.ep.cpu;

import io.ortex.ep.cpu.ops.ControlFlowOps;
import io.ortex.ep.cpu.ops.ElementwiseOps;
import io.ortex.ep.cpu.ops.ImageOps;
import io.ortex.ep.cpu.ops.LossOps;
import io.ortex.ep.cpu.ops.MlOps;
import io.ortex.ep.cpu.ops.NnOps;
import io.ortex.ep.cpu.ops.NormOps;
import io.ortex.ep.cpu.ops.RecurrentOps;
import io.ortex.ep.cpu.ops.QuantizeOps;
import io.ortex.ep.cpu.ops.ReduceOps;
import io.ortex.ep.cpu.ops.RegionOps;
import io.ortex.ep.cpu.ops.ShapeOps;
import io.ortex.ep.cpu.ops.SignalOps;
import io.ortex.ep.cpu.ops.StateSpaceOps;
import io.ortex.ep.cpu.ops.StringOps;
import io.ortex.ep.cpu.ops.TensorMathOps;

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
        ControlFlowOps.register(r);
        RecurrentOps.register(r);
        LossOps.register(r);
        ImageOps.register(r);
        TensorMathOps.register(r);
        MlOps.register(r);
        QuantizeOps.register(r);
        SignalOps.register(r);
        StringOps.register(r);
        RegionOps.register(r);
        StateSpaceOps.register(r);
        return r;
    }
}
