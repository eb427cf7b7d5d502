/**
 * The signal-processing kernels: DFT and STFT on a shared FFT plan, the Hann, Hamming and Blackman windows and
 * MelWeightMatrix. Registered by {@link io.ortex.ep.cpu.ops.signal.SignalOps}.
 */
package io.ortex.ep.cpu.ops.signal;
