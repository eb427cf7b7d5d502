package io.ortex.api.spi;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A read-only view of a graph, the counterpart of ONNX Runtime's {@code OrtGraph}. EPs inspect it and never change
 * it. Views are valid during the call that hands them out unless stated otherwise.
 */
public interface GraphView {
    /**
     * Gets the graph's name.
     *
     * @return the name, possibly empty
     */
    String name();

    /**
     * Gets the nodes in a stable topological order.
     *
     * @return the nodes
     */
    List<NodeView> nodes();

    /**
     * Gets the graph inputs, in order, including initializers that the model lists as inputs.
     *
     * @return the inputs
     */
    List<ValueView> inputs();

    /**
     * Gets the graph outputs, in order.
     *
     * @return the outputs
     */
    List<ValueView> outputs();

    /**
     * Gets the initializers (constant or overridable) of this graph.
     *
     * @return the initializers
     */
    List<ValueView> initializers();

    /**
     * Finds a value by name in this graph or, for a subgraph, in the graphs around it.
     *
     * @param name the value's name
     * @return the value, or empty
     */
    Optional<ValueView> value(String name);

    /**
     * Gets the operator-set imports: domain ({@code ""} for ONNX) to version.
     *
     * @return the opset imports of the model
     */
    Map<String, Integer> opsetImports();

    /**
     * Gets the model's IR version.
     *
     * @return the IR version
     */
    long irVersion();

    /**
     * Gets the model file's path.
     *
     * @return the path, or empty when the model was loaded from bytes
     */
    Optional<Path> modelPath();

    /**
     * Gets the node that holds this graph as an attribute.
     *
     * @return the parent node, or empty for the main graph and for group views
     */
    Optional<NodeView> parentNode();

    /**
     * Gets the model's metadata ({@code metadata_props}).
     *
     * @return the metadata
     */
    Map<String, String> modelMetadata();
}
