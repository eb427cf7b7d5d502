package io.ortex.runtime.internal;

import io.ortex.api.Tensor;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What runs one graph of a session (the main graph or a nested subgraph): its plan, a value table with its
 * initializers decoded once and placed in their slots, and its outputs in order. Immutable; shared by every run.
 */
final class GraphPlan {
    private final ExecutionPlan plan;
    private final Tensor[] constants;
    private final List<String> outputs;
    private final int[] outputSlots;

    /**
     * Creates the plan of one graph.
     *
     * @param plan the compiled partitions in order
     * @param constants the graph's initializers by name
     * @param outputs the graph's output names
     */
    GraphPlan(ExecutionPlan plan, Map<String, Tensor> constants, List<String> outputs) {
        this.plan = plan;
        this.constants = new Tensor[plan.slotCount()];
        constants.forEach((name, value) -> {
            int slot = plan.slot(name);
            if (slot >= 0) {
                this.constants[slot] = value;
            }
        });
        this.outputs = List.copyOf(outputs);
        this.outputSlots = outputs.stream().mapToInt(plan::slot).toArray();
    }

    ExecutionPlan plan() {
        return plan;
    }

    List<String> outputs() {
        return outputs;
    }

    /**
     * Runs the graph: places the given values in a fresh value table, executes the plan, and returns the outputs in
     * host memory. The outputs leave the run's memory for good; every other value the table still holds is let go,
     * and what it holds in an EP's own memory closed (a graph output's there once its copy to host is made).
     *
     * @param feeds the graph's inputs, and for a subgraph the outer-scope values it reads, by name; names the graph
     *     does not use are ignored
     * @param run the kernels' context, the run's memory and the profiler
     * @return the outputs by name, in graph order
     */
    Map<String, Tensor> run(Map<String, Tensor> feeds, ExecutionPlan.Run run) {
        return run(feeds, run, Map.of());
    }

    /**
     * Runs the graph as {@link #run(Map, ExecutionPlan.Run)} does, letting the steps that compute the pinned outputs
     * write them into the caller's arrays (an output computed elsewhere is the caller's to copy).
     *
     * @param feeds the graph's inputs by name
     * @param run the kernels' context, the run's memory and the profiler
     * @param pinned heap tensors of the outputs' types and shapes, by output name
     * @return the outputs by name, in graph order
     */
    Map<String, Tensor> run(Map<String, Tensor> feeds, ExecutionPlan.Run run, Map<String, Tensor> pinned) {
        Tensor[] values = constants.clone();
        RunArena arena = run.arena();
        Tensor[] pinnedBySlot = pinned.isEmpty() ? null : new Tensor[values.length];
        for (Map.Entry<String, Tensor> p : pinned.entrySet()) {
            int slot = plan.slot(p.getKey());
            if (slot >= 0) {
                arena.pin(p.getValue());
                pinnedBySlot[slot] = p.getValue();
            }
        }
        RunStreams streams = plan.usesStreams() ? run.streams() : null;
        for (Map.Entry<String, Tensor> feed : feeds.entrySet()) {
            int slot = plan.slot(feed.getKey());
            if (slot >= 0) {
                values[slot] = feed.getValue();
                arena.hold(feed.getValue());
            }
        }
        try {
            plan.execute(values, run, pinnedBySlot);
            Map<String, Tensor> out = new LinkedHashMap<>();
            for (int i = 0; i < outputSlots.length; i++) {
                Tensor t = values[outputSlots[i]];
                arena.release(t);
                out.put(outputs.get(i), plan.toHost(outputs.get(i), t, streams));
            }
            // the host reads nothing a stream still fills
            plan.awaitOutputs(streams);
            return out;
        } finally {
            for (int i = 0; i < values.length; i++) {
                arena.drop(values[i]);
                if (values[i] != null && plan.owns(i)) {
                    if (streams != null) {
                        streams.closeAtEnd(values[i]);
                    } else {
                        values[i].close();
                    }
                }
            }
        }
    }
}
