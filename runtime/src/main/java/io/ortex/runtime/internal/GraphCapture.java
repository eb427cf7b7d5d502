package io.ortex.runtime.internal;

import io.ortex.api.ErrorCode;
import io.ortex.api.InvalidArgumentException;
import io.ortex.api.Names;
import io.ortex.api.OrtexException;
import io.ortex.api.RunOptions;
import io.ortex.api.spi.ExecutionProvider;
import io.ortex.api.spi.GraphCapturePolicy;
import io.ortex.api.spi.NodeView;
import io.ortex.onnx.Graph;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Graph capture and replay for one compiled session, as ONNX Runtime does it: the first EP that captures
 * ({@link ExecutionProvider#isGraphCaptureEnabled}) is checked against its node-assignment policy once the session
 * is partitioned; runs then go through the session's kernels, again within one call until the EP has captured the
 * run option's graph id, and from then on the EP replays it. A graph id the EP has not captured within
 * {@link RunOptions#CAPTURE_RUNS} runs is reported once and runs normally from then on. Thread safe.
 */
final class GraphCapture {
    private final ExecutionProvider ep;
    private final Set<Integer> failed = ConcurrentHashMap.newKeySet();

    private GraphCapture(ExecutionProvider ep) {
        this.ep = ep;
    }

    /**
     * Finds the session's capturing EP and checks the partition against its policy.
     *
     * @param eps the session's EPs in priority order
     * @param groups the partition of every graph
     * @param model the model's description, for messages
     * @return the capture, or {@code null} when no EP captures
     * @throws OrtexException when the partition breaks the EP's policy
     */
    static GraphCapture of(List<ExecutionProvider> eps, Map<Graph, List<Partitioner.Group>> groups, String model) {
        ExecutionProvider capturing = eps.stream().filter(ExecutionProvider::isGraphCaptureEnabled).findFirst()
                .orElse(null);
        if (capturing == null) {
            return null;
        }
        GraphCapturePolicy policy = capturing.graphCapturePolicy();
        boolean cpuAllowed = policy == GraphCapturePolicy.ALLOW_CPU_FOR_SHAPES
                && capturing.memoryDevice().usesCpuMemory();
        int mine = 0;
        List<String> elsewhere = new ArrayList<>();
        for (List<Partitioner.Group> graphGroups : groups.values()) {
            for (Partitioner.Group g : graphGroups) {
                if (g.ep() == capturing) {
                    mine += g.nodes().size();
                } else if (!(cpuAllowed && RuntimeEnvironment.CPU_EP.equals(g.ep().name()))) {
                    for (NodeView n : g.nodes()) {
                        elsewhere.add(Names.quote(n.displayName()) + " (" + Partitioner.opName(n) + ") on "
                                + g.ep().name());
                    }
                }
            }
        }
        String rule = policy == GraphCapturePolicy.ALL_NODES_ON_EP ? "every node on it (ALL_NODES_ON_EP)"
                : "every node on it or on the CPU EP without copies between memories (ALLOW_CPU_FOR_SHAPES)";
        if (mine == 0 || !elsewhere.isEmpty()) {
            throw new OrtexException(ErrorCode.INVALID_ARGUMENT, model + ": EP " + capturing.name()
                    + " captures graphs, which needs " + rule + "; "
                    + (mine == 0 ? "it runs no node" : "nodes run elsewhere: " + shortList(elsewhere)));
        }
        return new GraphCapture(capturing);
    }

    private static String shortList(List<String> items) {
        int shown = Math.min(items.size(), 5);
        return String.join(", ", items.subList(0, shown)) + (items.size() > shown ? " and "
                + (items.size() - shown) + " more" : "");
    }

    /**
     * Reads the graph id of a run.
     *
     * @param runConfig the run's configuration entries
     * @return the id, 0 by default, -1 for a run that neither captures nor replays
     * @throws InvalidArgumentException when the entry is not a number of -1 or more
     */
    static int graphId(Map<String, String> runConfig) {
        String text = runConfig.get(RunOptions.GRAPH_ID);
        if (text == null) {
            return 0;
        }
        try {
            int id = Integer.parseInt(text.trim());
            if (id >= -1) {
                return id;
            }
        } catch (NumberFormatException e) {
            // refused below
        }
        throw new InvalidArgumentException("run option " + RunOptions.GRAPH_ID + " must be a graph id (0 or more) "
                + "or -1; found " + Names.quote(text));
    }

    /**
     * Gets the capturing EP.
     *
     * @return the EP
     */
    ExecutionProvider ep() {
        return ep;
    }

    /**
     * Tells whether a run of a graph id is replayed.
     *
     * @param graphId the id
     * @return true when the EP has captured it
     */
    boolean replays(int graphId) {
        return graphId != -1 && ep.isGraphCaptured(graphId);
    }

    /**
     * Tells whether a normal run of a graph id should be followed by another, for the EP to capture it.
     *
     * @param graphId the id
     * @param runs the runs made so far in this call
     * @return true while the EP has not captured it, fewer than {@link RunOptions#CAPTURE_RUNS} runs were made,
     *     and the id has not failed before
     */
    boolean runAgain(int graphId, int runs) {
        if (graphId == -1 || failed.contains(graphId) || ep.isGraphCaptured(graphId)) {
            return false;
        }
        if (runs >= RunOptions.CAPTURE_RUNS) {
            return false;
        }
        return true;
    }

    /**
     * Records that a graph id was not captured within the bound.
     *
     * @param graphId the id
     * @return true the first time, when it should be reported
     */
    boolean fail(int graphId) {
        return graphId != -1 && !ep.isGraphCaptured(graphId) && failed.add(graphId);
    }
}
