package io.ortex.runtime.internal.graph;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.Set;

/**
 * Orders items that read and write named values (nodes, compiled partitions) so that each comes after the items that
 * write what it reads: Kahn's algorithm, taking among the ready items the one a priority puts first. Linear in the
 * items and their names but for the heap.
 */
public final class DependencyOrder {
    private DependencyOrder() {
    }

    /**
     * Orders items by their dependencies.
     *
     * @param writes per item, the names it writes
     * @param reads per item, the names it reads; a name no item writes, and the empty name (an omitted value), make
     *     no dependency
     * @param priority which of the ready items comes first, by index
     * @return the items' indexes in order; an item in a cycle, or after one, is missing
     */
    public static List<Integer> of(List<? extends Collection<String>> writes, List<? extends Collection<String>> reads,
                                   Comparator<Integer> priority) {
        int count = writes.size();
        Map<String, Integer> producer = new HashMap<>();
        for (int i = 0; i < count; i++) {
            for (String w : writes.get(i)) {
                if (!w.isEmpty()) {
                    producer.put(w, i);
                }
            }
        }
        int[] pending = new int[count];
        List<List<Integer>> dependents = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            dependents.add(new ArrayList<>(1));
        }
        for (int i = 0; i < count; i++) {
            Set<Integer> waitsFor = new HashSet<>();
            for (String r : reads.get(i)) {
                Integer p = r.isEmpty() ? null : producer.get(r);
                if (p != null && p != i && waitsFor.add(p)) {
                    pending[i]++;
                    dependents.get(p).add(i);
                }
            }
        }
        PriorityQueue<Integer> ready = new PriorityQueue<>(priority);
        for (int i = 0; i < count; i++) {
            if (pending[i] == 0) {
                ready.add(i);
            }
        }
        List<Integer> order = new ArrayList<>(count);
        while (!ready.isEmpty()) {
            int next = ready.poll();
            order.add(next);
            for (int d : dependents.get(next)) {
                if (--pending[d] == 0) {
                    ready.add(d);
                }
            }
        }
        return order;
    }
}
