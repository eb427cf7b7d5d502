package io.ortex.api;

/**
 * How much graph optimization the compile API applies before EPs see the model, ONNX Runtime's
 * {@code GraphOptimizationLevel} as taken by {@code SetGraphOptimizationLevel}. The compile API's default is
 * {@link #DISABLE_ALL}, as in ONNX Runtime.
 *
 * <p>Ortex's optimizer is small: {@link #BASIC} removes {@code Identity} nodes (reconnecting their readers to the
 * Identity's input, or renaming the producer's output when the Identity wrote a graph output) and nodes, with the
 * initializers only they read, whose outputs nothing reads and that write no graph output. {@link #EXTENDED} and
 * {@link #ALL} currently do exactly what {@link #BASIC} does.
 */
public enum GraphOptimizationLevel {
    /** No optimization: the model reaches the EPs as it was written. */
    DISABLE_ALL,
    /** Identity removal and dead node elimination. */
    BASIC,
    /** For now the same as {@link #BASIC}. */
    EXTENDED,
    /** For now the same as {@link #BASIC}. */
    ALL
}
