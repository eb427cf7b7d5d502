package io.ortex.api.spi;

import io.ortex.api.Tensor;
import io.ortex.api.TensorInfo;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Optional;

/**
 * A read-only view of a value (an edge of the graph), the counterpart of ONNX Runtime's {@code OrtValueInfo}.
 */
public interface ValueView {
    /**
     * Gets the value's name.
     *
     * @return the name
     */
    String name();

    /**
     * Gets the declared element type and shape, from graph inputs, outputs, value_info or the initializer.
     * Mirrors ONNX Runtime's {@code GetValueInfoTypeInfo}.
     *
     * @return the declared type, or empty when the model does not declare it
     */
    Optional<TensorInfo> typeInfo();

    /**
     * Gets the node that produces this value.
     * Mirrors ONNX Runtime's {@code ValueInfo_GetValueProducer}.
     *
     * @return the producer, or empty for graph inputs, initializers and outer-scope values
     */
    Optional<NodeView> producer();

    /**
     * Gets the nodes that read this value in the same graph.
     * Mirrors ONNX Runtime's {@code ValueInfo_GetValueConsumers}.
     *
     * @return the consumers
     */
    List<NodeView> consumers();

    /**
     * Tells whether this value is an initializer (constant weights, or a default for a graph input).
     * ONNX Runtime's {@code ValueInfo_GetInitializerValue} returning a value.
     *
     * @return true for an initializer
     */
    boolean isInitializer();

    /**
     * Tells whether this is an initializer that no graph input can override.
     * Mirrors ONNX Runtime's {@code ValueInfo_IsConstantInitializer}.
     *
     * @return true for a constant initializer
     */
    boolean isConstantInitializer();

    /**
     * Reads an initializer's value, loading external data on demand. Do not cache it longer than the call.
     * Mirrors ONNX Runtime's {@code ValueInfo_GetInitializerValue}.
     *
     * @return the tensor, or empty when this is not an initializer
     */
    Optional<Tensor> initializer();

    /**
     * Tells where an initializer's data lives when it is stored outside the model file.
     * Mirrors ONNX Runtime's {@code ValueInfo_GetExternalInitializerInfo}.
     *
     * @return the external location, or empty
     */
    Optional<ExternalDataInfo> externalData();

    /**
     * Maps the data of an initializer that lies in a file (external data, or a large initializer whose bytes the
     * runtime left in the model file) read-only into memory instead of copying it: the operating system reads a page
     * of the file when it is first touched and, the page being clean, may drop it again. This suits a large table of
     * which a run reads a few rows, such as a word-embedding table. The bytes are the tensor's raw data, little-endian
     * as ONNX stores it (the buffer's order says so). The mapping stays valid while the buffer is reachable, after the
     * session is closed and the file deleted; a file changed in place changes what the mapping reads, and one cut
     * short makes a read of the lost pages fail with an {@link InternalError}. Added in package version 0.8.0; the
     * default maps nothing.
     *
     * @return the data, or empty when it is held in memory or the file cannot be mapped
     */
    default Optional<ByteBuffer> mappedData() {
        return Optional.empty();
    }

    /**
     * Tells whether this value is an input of its graph.
     * Mirrors ONNX Runtime's {@code ValueInfo_IsRequiredGraphInput} and {@code ValueInfo_IsOptionalGraphInput}.
     *
     * @return true for a graph input
     */
    boolean isGraphInput();

    /**
     * Tells whether this value is an output of its graph.
     * Mirrors ONNX Runtime's {@code ValueInfo_IsGraphOutput}.
     *
     * @return true for a graph output
     */
    boolean isGraphOutput();

    /**
     * Tells whether this value comes from a graph that encloses this one.
     * Mirrors ONNX Runtime's {@code ValueInfo_IsFromOuterScope}.
     *
     * @return true for an outer-scope value
     */
    boolean isFromOuterScope();
}
