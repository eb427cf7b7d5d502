package io.ortex.ep.cpu.ops.signal;

import io.ortex.ep.cpu.OpRegistry;

/** Registers the signal-processing ops: DFT, STFT, the Hann, Hamming and Blackman windows and MelWeightMatrix. */
public final class SignalOps {
    private SignalOps() {
    }

    /**
     * Registers this category's ops.
     *
     * @param r the registry
     */
    public static void register(OpRegistry r) {
        r.register("", "DFT", 17, 19, node -> DftKernel.create(node, false));
        r.register("", "DFT", 20, node -> DftKernel.create(node, true));
        r.register("", "STFT", 17, StftKernel::create);
        r.register("", "HannWindow", 17, WindowKernels::hann);
        r.register("", "HammingWindow", 17, WindowKernels::hamming);
        r.register("", "BlackmanWindow", 17, WindowKernels::blackman);
        r.register("", "MelWeightMatrix", 17, MelWeightMatrixKernel::create);
    }
}
