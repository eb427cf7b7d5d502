package io.ortex.api;

/**
 * Hears how far a {@link ModelCompiler} got. Called on the compiling thread, once before the first partition is
 * compiled (with {@code done = 0}) and once after each EP compiled its partitions; must not block for long.
 */
@FunctionalInterface
public interface CompileProgressListener {
    /**
     * Reports progress.
     *
     * @param done the partitions compiled so far
     * @param total the partitions the EPs claimed, over all EPs (CPU EP partitions, which are not compiled ahead,
     *     included)
     */
    void progress(int done, int total);
}
