package io.ortex.api.spi;

/**
 * An EP's answer to whether the runtime should convert one op to the EP's preferred data layout
 * ({@link ExecutionProvider#shouldConvertDataLayout}): the three values of the {@code should_convert} result of ONNX
 * Runtime's {@code OrtEp::ShouldConvertDataLayoutForOp}.
 */
public enum LayoutConversion {
    /** Convert the op (ONNX Runtime's value greater than 0), also one the runtime does not list as layout-sensitive. */
    CONVERT,
    /** Keep the op in its ONNX layout (ONNX Runtime's 0). */
    KEEP,
    /**
     * Let the runtime decide (ONNX Runtime's value less than 0): it converts the layout-sensitive ops it knows
     * ({@code Conv}, the pooling ops, {@code BatchNormalization}, {@code Resize}, ...; see
     * {@link DataLayout#NHWC_DOMAIN}).
     */
    RUNTIME_DECIDES
}
