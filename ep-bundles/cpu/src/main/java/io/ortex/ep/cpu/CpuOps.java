package io.ortex.ep.cpu;

import io.ortex.ep.cpu.ops.controlflow.ControlFlowOps;
import io.ortex.ep.cpu.ops.math.MathOps;
import io.ortex.ep.cpu.ops.ml.MlOps;
import io.ortex.ep.cpu.ops.nn.NnOps;
import io.ortex.ep.cpu.ops.objectdetection.ObjectDetectionOps;
import io.ortex.ep.cpu.ops.quantization.QuantizationOps;
import io.ortex.ep.cpu.ops.reduction.ReductionOps;
import io.ortex.ep.cpu.ops.rnn.RnnOps;
import io.ortex.ep.cpu.ops.signal.SignalOps;
import io.ortex.ep.cpu.ops.tensor.TensorOps;
import io.ortex.ep.cpu.ops.text.TextOps;

/** Builds the CPU EP's operator table from the registrar of each op category. */
final class CpuOps {
    private CpuOps() {
    }

    static OpRegistry registry() {
        OpRegistry r = new OpRegistry();
        MathOps.register(r);
        NnOps.register(r);
        TensorOps.register(r);
        ReductionOps.register(r);
        RnnOps.register(r);
        QuantizationOps.register(r);
        ControlFlowOps.register(r);
        SignalOps.register(r);
        MlOps.register(r);
        TextOps.register(r);
        ObjectDetectionOps.register(r);
        return r;
    }
}
