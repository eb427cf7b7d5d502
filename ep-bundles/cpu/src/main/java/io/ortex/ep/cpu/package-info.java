/**
 * The CPU EP's factory and EP: it supports the host CPU, claims every node it has a kernel for, and compiles each
 * node into a {@link io.ortex.ep.cpu.CpuKernel} made by the {@link io.ortex.ep.cpu.OpRegistry}. The kernels live in
 * one package per op category under {@code io.ortex.ep.cpu.ops} (math, nn, tensor, reduction, rnn, quantization,
 * controlflow, signal, ml, text, objectdetection), each with one registrar named {@code <Category>Ops}, and the
 * helpers they share in {@code io.ortex.ep.cpu.ops.support}; dense float32 linear algebra is in
 * {@code io.ortex.ep.cpu.linalg}. All of them are private to the bundle.
 */
package io.ortex.ep.cpu;
