/**
 * The CPU EP's fusions: patterns of nodes the CPU EP claims together as one group and computes in one kernel
 * (MatMul with its bias Add and a following GELU, the decomposed LayerNormalization, GELU, scaled dot-product
 * attention, ...). {@link io.ortex.ep.cpu.fusion.Fusions} finds them in a graph in priority order; each
 * {@link io.ortex.ep.cpu.fusion.FusionMatch} builds its kernel when the group is compiled. A fused kernel checks what
 * it could not know at compile time (types and shapes) and, where its fast path does not apply, runs the group's
 * nodes one after the other with their own kernels, so a fusion never changes a result beyond float rounding.
 */
package io.ortex.ep.cpu.fusion;
