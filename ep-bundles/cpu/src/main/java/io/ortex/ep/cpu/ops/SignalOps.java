package io.ortex.ep.cpu.ops;

import io.ortex.ep.cpu.OpRegistry;

/**
 * Signal-processing ops: DFT, STFT, the Hann, Hamming and Blackman windows and MelWeightMatrix.
 */
public final class SignalOps {
    private SignalOps() {
    }

    /**
     * Registers this group's ops.
     *
     * @param r the registry
     */
    public static void register(OpRegistry r) {
        r.register("", "DFT", 17, DftKernel::create);
        r.register("", "STFT", 17, StftKernel::create);
        r.register("", "HannWindow", 17, WindowKernel::hann);
        r.register("", "HammingWindow", 17, WindowKernel::hamming);
        r.register("", "BlackmanWindow", 17, WindowKernel::blackman);
        r.register("", "MelWeightMatrix", 17, MelWeightMatrixKernel::create);
    }
}
