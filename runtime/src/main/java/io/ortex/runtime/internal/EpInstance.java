package io.ortex.runtime.internal;

import io.ortex.api.spi.ComputeKernel;
import io.ortex.api.spi.ExecutionProvider;
import java.util.List;

/**
 * An EP created for one session, with the binding whose factory must release it and the kernels it compiled.
 *
 * @param binding the factory and devices the EP was created from
 * @param ep the EP
 * @param kernels the kernels it compiled for the session, closed when the session closes
 */
record EpInstance(EpBinding binding, ExecutionProvider ep, List<ComputeKernel> kernels) {
}
