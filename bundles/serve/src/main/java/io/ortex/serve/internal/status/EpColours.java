package io.ortex.serve.internal.status;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The colour of each EP on the status page, shared by every graph and the legend: the CPU EP first, then the other
 * EPs in the order given, each a colour of a palette light enough for dark text (cycled when there are more EPs than
 * colours). Immutable.
 */
public final class EpColours {
    /** The CPU EP's name, which always takes the first colour. */
    static final String CPU = "CPUExecutionProvider";
    /** The fill of a node the session does not run (the graph optimizer removed or folded it). */
    static final String NOT_RUN = "#e0e0e0";
    private static final String[] PALETTE = {"#a0cbe8", "#ffbe7d", "#8cd17d", "#ff9d9a", "#d4a6c8", "#86bcb6",
        "#f1ce63", "#fabfd2", "#d7b5a6"};

    private final Map<String, String> byEp = new LinkedHashMap<>();

    /**
     * Assigns colours.
     *
     * @param eps the EP names in the order they should take colours (duplicates ignored)
     */
    EpColours(List<String> eps) {
        if (eps.contains(CPU)) {
            byEp.put(CPU, PALETTE[0]);
        }
        for (String ep : eps) {
            byEp.computeIfAbsent(ep, k -> PALETTE[byEp.size() % PALETTE.length]);
        }
    }

    /**
     * Gets an EP's colour.
     *
     * @param ep the EP's name, or null for a node no EP runs
     * @return a CSS colour
     */
    public String colour(String ep) {
        return ep == null ? NOT_RUN : byEp.getOrDefault(ep, NOT_RUN);
    }

    /**
     * Gets every EP with its colour.
     *
     * @return the EPs in colour order
     */
    public Map<String, String> all() {
        return byEp;
    }
}
