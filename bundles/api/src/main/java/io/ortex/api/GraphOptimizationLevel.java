package io.ortex.api;

import java.util.Locale;

/**
 * How much the runtime optimizes a model's graph before its EPs see it, ONNX Runtime's
 * {@code GraphOptimizationLevel}. Sessions default to {@link #ALL}, as in ONNX Runtime; the compile API defaults to
 * {@link #DISABLE_ALL} so that a compiled model keeps the source's nodes. The optimizations are EP-agnostic rewrites
 * that keep the model valid ONNX (a session can save the result, {@link SessionOptions#OPTIMIZED_MODEL_FILEPATH});
 * fusions into kernels of one EP happen in that EP's own compile step (the CPU EP fuses at {@link #EXTENDED} and
 * above).
 *
 * <p>Optimizers, by the name that {@link SessionOptions#DISABLE_SPECIFIED_OPTIMIZERS} takes:
 * <ul>
 *   <li>{@code ConstantToInitializer} ({@link #BASIC}): {@code Constant} nodes become initializers;</li>
 *   <li>{@code IdentityElimination} ({@link #BASIC}): {@code Identity} nodes go, their readers read the input;</li>
 *   <li>{@code DeadNodeElimination} ({@link #BASIC}): nodes whose outputs nothing reads go, with the initializers
 *       only they read;</li>
 *   <li>{@code CommonSubexpressionElimination} ({@link #BASIC}): nodes with the same op, attributes and inputs
 *       are computed once;</li>
 *   <li>{@code ConstantFolding} ({@link #BASIC}): nodes whose inputs are all initializers are computed once at
 *       session creation, with the CPU EP's kernels, and become initializers; shape computations fold too where the
 *       shapes they read are static;</li>
 *   <li>{@code CpuFusions} ({@link #EXTENDED}): the CPU EP fuses the nodes it runs (MatMul+Add, LayerNormalization,
 *       GELU, attention, Conv with BatchNormalization and activations).</li>
 * </ul>
 */
public enum GraphOptimizationLevel {
    /** No optimization: the model reaches the EPs as it was written. */
    DISABLE_ALL,
    /** Semantics-preserving rewrites: constants, identities, dead and duplicate nodes, constant folding. */
    BASIC,
    /** {@link #BASIC} plus the fusions of the EPs' compile steps. */
    EXTENDED,
    /** Every optimization: for now what {@link #EXTENDED} does. */
    ALL;

    /**
     * Parses a level: its name (any case, with or without ONNX Runtime's {@code ORT_} or {@code ORT_ENABLE_}
     * prefix) or ONNX Runtime's number (0, 1, 2, 99).
     *
     * @param text the level
     * @return the level
     * @throws InvalidArgumentException when it names no level
     */
    public static GraphOptimizationLevel parse(String text) {
        String t = text.trim().toUpperCase(Locale.ROOT);
        switch (t) {
            case "0", "DISABLE_ALL", "ORT_DISABLE_ALL" -> {
                return DISABLE_ALL;
            }
            case "1", "BASIC", "ENABLE_BASIC", "ORT_ENABLE_BASIC" -> {
                return BASIC;
            }
            case "2", "EXTENDED", "ENABLE_EXTENDED", "ORT_ENABLE_EXTENDED" -> {
                return EXTENDED;
            }
            case "99", "ALL", "ENABLE_ALL", "ORT_ENABLE_ALL" -> {
                return ALL;
            }
            default -> throw new InvalidArgumentException("'" + text + "' is no graph optimization level: use "
                    + "DISABLE_ALL, BASIC, EXTENDED or ALL (or 0, 1, 2, 99)");
        }
    }
}
