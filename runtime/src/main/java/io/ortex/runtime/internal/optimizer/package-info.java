/**
 * Graph optimizations the compile API applies before partitioning, by {@link io.ortex.api.GraphOptimizationLevel}:
 * rewrites of the main graph's {@code GraphProto} that keep the model's results. Private to the runtime.
 */
package io.ortex.runtime.internal.optimizer;
