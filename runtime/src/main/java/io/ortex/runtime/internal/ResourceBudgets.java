package io.ortex.runtime.internal;

import io.ortex.api.ElementType;
import io.ortex.api.InvalidArgumentException;
import io.ortex.api.Names;
import io.ortex.api.TensorInfo;
import io.ortex.api.spi.ExecutionProvider;
import io.ortex.api.spi.NodeView;
import io.ortex.api.spi.ValueView;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.function.BiConsumer;
import org.slf4j.event.Level;

/**
 * Capacity-aware partitioning: the memory each EP of a session can give its weights, from the EP
 * ({@link ExecutionProvider#availableMemoryBytes}) and the session option
 * {@code ep.<ep name in lower case>.resource_budget_kb}, the smaller of the two. After an EP claims nodes, its
 * claims are cut where the constant initializers they read, in graph order and each counted once, pass the budget:
 * the nodes from there on are left to the next EPs, so every claimed group keeps a prefix of itself and stays free
 * of cycles. One budget covers all of a session's graphs, subgraphs first as they are partitioned.
 */
final class ResourceBudgets {
    /** The session option's suffix, after {@code ep.<ep name in lower case>}. */
    static final String OPTION = ".resource_budget_kb";

    private final Map<ExecutionProvider, Budget> budgets = new IdentityHashMap<>();

    /** One EP's budget: its limit, what its kept nodes use, and the initializers already counted. */
    private static final class Budget {
        final long limit;
        long used;
        boolean exhausted;
        final Set<ValueView> counted = new HashSet<>();

        Budget(long limit) {
            this.limit = limit;
        }
    }

    private ResourceBudgets() {
    }

    /** No budgets: every claim is kept whole. */
    static ResourceBudgets none() {
        return new ResourceBudgets();
    }

    /**
     * Reads the budgets of a session's EPs.
     *
     * @param eps the EPs
     * @param config the session configuration
     * @return the budgets
     * @throws InvalidArgumentException when a budget option is not a whole number of KB
     */
    static ResourceBudgets of(List<ExecutionProvider> eps, Map<String, String> config) {
        ResourceBudgets b = new ResourceBudgets();
        for (ExecutionProvider ep : eps) {
            String key = "ep." + ep.name().toLowerCase(Locale.ROOT) + OPTION;
            long limit = Long.MAX_VALUE;
            String text = config.get(key);
            if (text != null) {
                limit = kilobytes(key, text);
            }
            OptionalLong available = ep.availableMemoryBytes();
            if (available != null && available.isPresent()) {
                limit = Math.min(limit, Math.max(0, available.getAsLong()));
            }
            if (limit != Long.MAX_VALUE) {
                b.budgets.put(ep, new Budget(limit));
            }
        }
        return b;
    }

    private static long kilobytes(String key, String text) {
        try {
            long kb = Long.parseLong(text.trim());
            if (kb >= 0 && kb <= Long.MAX_VALUE / 1024) {
                return kb * 1024;
            }
        } catch (NumberFormatException e) {
            // refused below
        }
        throw new InvalidArgumentException("session option " + key + " must be a whole number of KB, 0 or more; "
                + "found " + Names.quote(text));
    }

    /**
     * Keeps what fits an EP's budget of the groups it claimed in one graph.
     *
     * @param ep the EP
     * @param groups its groups, accepted so far
     * @param positions the graph's nodes in topological order
     * @param log told where the budget ran out
     * @return the groups cut to the budget, empty ones left out
     */
    List<Partitioner.Group> fit(ExecutionProvider ep, List<Partitioner.Group> groups,
                                Map<NodeView, Integer> positions, BiConsumer<Level, String> log) {
        Budget budget = budgets.get(ep);
        if (budget == null || groups.isEmpty()) {
            return groups;
        }
        List<NodeView> claimed = new ArrayList<>();
        groups.forEach(g -> claimed.addAll(g.nodes()));
        claimed.sort(Comparator.comparingInt(positions::get));
        int cut = Integer.MAX_VALUE;
        for (NodeView n : claimed) {
            long cost = budget.exhausted ? Long.MAX_VALUE : cost(n, budget.counted);
            if (budget.exhausted || cost > budget.limit - budget.used) {
                if (!budget.exhausted) {
                    log.accept(Level.INFO, "EP " + ep.name() + " reached its resource budget of "
                            + budget.limit / 1024 + " KB at node " + Names.quote(n.displayName()) + " (its weights "
                            + "need " + cost + " bytes more, " + (budget.limit - budget.used) + " are left): the "
                            + "next EPs run it and the nodes after it");
                }
                budget.exhausted = true;
                cut = positions.get(n);
                break;
            }
            budget.used += cost;
            for (ValueView v : n.inputs()) {
                if (v != null && v.isConstantInitializer()) {
                    budget.counted.add(v);
                }
            }
        }
        if (cut == Integer.MAX_VALUE) {
            return groups;
        }
        List<Partitioner.Group> kept = new ArrayList<>();
        for (Partitioner.Group g : groups) {
            int last = cut;
            List<NodeView> prefix = g.nodes().stream().filter(n -> positions.get(n) < last).toList();
            if (!prefix.isEmpty()) {
                kept.add(new Partitioner.Group(g.ep(), prefix, g.options()));
            }
        }
        return kept;
    }

    /** The bytes of a node's constant initializers not counted yet. */
    private static long cost(NodeView n, Set<ValueView> counted) {
        long bytes = 0;
        Set<ValueView> seen = new HashSet<>();
        for (ValueView v : n.inputs()) {
            if (v != null && v.isConstantInitializer() && !counted.contains(v) && seen.add(v)) {
                bytes += v.typeInfo().map(ResourceBudgets::bytes).orElse(0L);
            }
        }
        return bytes;
    }

    private static long bytes(TensorInfo info) {
        ElementType type = info.type();
        if (type == null || !info.hasShape()) {
            return 0;
        }
        long count = 1;
        for (long d : info.dims()) {
            count *= Math.max(d, 0);
        }
        return (count * type.bitWidth() + 7) / 8;
    }

    /**
     * Tells whether some EP's budget ran out, for the message of a node no EP took.
     *
     * @return the EPs whose budget ran out, by name
     */
    List<String> exhausted() {
        List<String> names = new ArrayList<>();
        budgets.forEach((ep, b) -> {
            if (b.exhausted) {
                names.add(ep.name());
            }
        });
        return names;
    }
}
