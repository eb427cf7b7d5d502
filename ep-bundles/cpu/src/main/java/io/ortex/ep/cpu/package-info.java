/**
 * The CPU EP's factory and EP: it supports the host CPU, claims every node it has a kernel for, and compiles each
 * node into a {@link io.ortex.ep.cpu.CpuKernel} made by the {@link io.ortex.ep.cpu.OpRegistry}.
 */
package io.ortex.ep.cpu;
