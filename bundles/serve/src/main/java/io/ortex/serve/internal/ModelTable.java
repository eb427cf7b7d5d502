package io.ortex.serve.internal;

import io.ortex.api.Names;
import java.nio.file.Path;
import java.util.List;

/**
 * The table {@code ortex:models} prints: one line per loaded version (those draining after a replacement or unload
 * included) and per model that is not ready, with the requests queued for dynamic batching and the requests the
 * version holds in all (queued, in a batch being formed, or running).
 */
public final class ModelTable {
    private static final String FORMAT = "%-28s %-8s %-12s %-7s %-9s %s%n";

    private ModelTable() {
    }

    /**
     * Formats the versions of a repository.
     *
     * @param root the models folder
     * @param entries the versions ({@link ModelRepository#versions()})
     * @return the table, without a trailing line break
     */
    public static String format(Path root, List<ModelRepository.Entry> entries) {
        StringBuilder sb = new StringBuilder("models in ").append(root).append('\n');
        if (entries.isEmpty()) {
            return sb.append("(none)").toString();
        }
        sb.append(String.format(FORMAT, "NAME", "VERSION", "STATE", "QUEUED", "IN-FLIGHT", "EPS / REASON"));
        for (ModelRepository.Entry e : entries) {
            boolean loaded = e.state().equals("READY") || e.state().equals("DRAINING");
            String detail = loaded ? String.join(", ", e.executionProviders()) : e.reason();
            sb.append(String.format(FORMAT, Names.escape(e.name()), e.version(), e.state(), e.queued(),
                    e.inFlight(), Names.oneLine(detail)));
        }
        return sb.toString().stripTrailing();
    }
}
