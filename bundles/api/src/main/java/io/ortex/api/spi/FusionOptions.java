package io.ortex.api.spi;

/**
 * Options for a fused group, the counterpart of ONNX Runtime's {@code OrtNodeFusionOptions}.
 *
 * @param dropConstantInitializers when true, constant initializers are not passed to the kernel at run time: the
 *     EP keeps its own copy, read in {@link ExecutionProvider#compile}
 */
public record FusionOptions(boolean dropConstantInitializers) {
    /** The defaults: constant initializers are passed to the kernel like any other input. */
    public static final FusionOptions DEFAULT = new FusionOptions(false);
}
