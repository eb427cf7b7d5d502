package io.ortex.runtime.internal;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Decides, once per plan, which outputs of registered kernels may be written into an input's buffer (a definition's
 * {@code mayInplace} pair): the input must be produced by an earlier step of the same plan (never a graph input, a
 * constant, or an outer-scope value of a subgraph), read by no later step, no value the plan keeps (graph outputs,
 * constants), read only once by the node, and used where it was produced (no copy between memories). What the plan
 * cannot know, whether another value shares the array (an Identity or Reshape output), the run's arena checks when
 * the kernel asks for the output ({@link RunArena#soleHolder}).
 */
final class InplacePlanner {
    private InplacePlanner() {
    }

    /**
     * Marks the in-place outputs of the plan's registered kernels.
     *
     * @param plan the plan
     * @param keep the values the plan never frees
     */
    static void mark(ExecutionPlan plan, Set<String> keep) {
        List<ExecutionPlan.Step> steps = plan.steps();
        Map<String, Integer> producer = new HashMap<>();
        Map<String, Integer> lastUse = new HashMap<>();
        for (int i = 0; i < steps.size(); i++) {
            for (String in : steps.get(i).inputs()) {
                lastUse.put(in, i);
            }
            for (String out : steps.get(i).outputs()) {
                producer.putIfAbsent(out, i);
            }
        }
        for (int i = 0; i < steps.size(); i++) {
            ExecutionPlan.Step s = steps.get(i);
            if (!(s.kernel() instanceof RegistryKernel k)) {
                continue;
            }
            for (Map.Entry<Integer, Integer> pair : k.definition().inplace().entrySet()) {
                int fused = k.fusedInput(pair.getValue());
                if (fused < 0) {
                    continue;
                }
                String name = s.inputs()[fused];
                Integer made = producer.get(name);
                if (made != null && made < i && lastUse.get(name) == i && !keep.contains(name)
                        && k.readers(fused) == 1 && s.copies()[fused] == null) {
                    k.allowInplace(pair.getKey());
                }
            }
        }
    }
}
