package io.ortex.api;

import java.nio.file.Path;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What a compilation produced: how many partitions became EPContext nodes, by EP, and the files written (the model
 * last, after its context binaries and external data). Immutable.
 *
 * @param epContextNodes the EPContext nodes written, by EP name, in the session's priority order
 * @param files the files written, in the order they were moved into place; empty for output to bytes or a stream
 *     with embedded payloads
 */
public record CompileResult(Map<String, Integer> epContextNodes, List<Path> files) {
    /**
     * Creates the result, copying its arguments.
     *
     * @param epContextNodes the EPContext nodes by EP
     * @param files the files written
     */
    public CompileResult {
        epContextNodes = Collections.unmodifiableMap(new LinkedHashMap<>(epContextNodes));
        files = List.copyOf(files);
    }

    /**
     * Gets the number of EPContext nodes written over all EPs.
     *
     * @return the count
     */
    public int totalEpContextNodes() {
        return epContextNodes.values().stream().mapToInt(Integer::intValue).sum();
    }
}
