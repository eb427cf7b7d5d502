/**
 * The helpers that kernels of several categories share: element arrays of every storage type, broadcasting,
 * shapes and axes, and conversions between tensors and working arrays. Holds no kernels and registers no ops.
 */
package io.ortex.ep.cpu.ops.support;
