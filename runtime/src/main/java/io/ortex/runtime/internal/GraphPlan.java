package io.ortex.runtime.internal;

import io.ortex.api.Tensor;
import java.util.List;
import java.util.Map;

/**
 * What runs one graph of a session (the main graph or a nested subgraph): its plan, its initializers decoded once,
 * and its output names in order.
 *
 * @param plan the compiled partitions in order
 * @param constants the graph's initializers
 * @param outputs the graph's output names
 */
record GraphPlan(ExecutionPlan plan, Map<String, Tensor> constants, List<String> outputs) {
}
