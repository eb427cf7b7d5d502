/**
 * The runtime's implementation: {@link io.ortex.runtime.internal.RuntimeEnvironment} (EP factories and devices),
 * {@link io.ortex.runtime.internal.Partitioner} (which EP runs which node), {@link io.ortex.runtime.internal.ExecutionPlan}
 * (compiled partitions in order) and {@link io.ortex.runtime.internal.InferenceSession}. Private to the bundle.
 */
package io.ortex.runtime.internal;
