/**
 * The control-flow kernels: If, Loop and Scan, which run their subgraphs through
 * {@link io.ortex.api.spi.KernelContext#runSubgraph}. Registered by
 * {@link io.ortex.ep.cpu.ops.controlflow.ControlFlowOps}.
 */
package io.ortex.ep.cpu.ops.controlflow;
