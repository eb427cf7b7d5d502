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
     * Mirrors ONNX Runtime's {@code Graph_GetNodes}.
     *
     * @return the nodes
     */
    List<NodeView> nodes();

    /**
     * Gets the graph inputs, in order, including initializers that the model lists as inputs.
     * Mirrors ONNX Runtime's {@code Graph_GetInputs}.
     *
     * @return the inputs
     */
    List<ValueView> inputs();

    /**
     * Gets the graph outputs, in order.
     * Mirrors ONNX Runtime's {@code Graph_GetOutputs}.
     *
     * @return the outputs
     */
    List<ValueView> outputs();

    /**
     * Gets the initializers (constant or overridable) of this graph.
     * Mirrors ONNX Runtime's {@code Graph_GetInitializers}.
     *
     * @return the initializers
     */
    List<ValueView> initializers();

    /**
     * Finds a value by name in this graph or, for a subgraph, in the graphs around it.
     * ONNX Runtime has no lookup by name; its EPs walk {@code Graph_GetInputs}, {@code Node_GetInputs} and the like.
     *
     * @param name the value's name
     * @return the value, or empty
     */
    Optional<ValueView> value(String name);

    /**
     * Gets the operator-set imports: domain ({@code ""} for ONNX) to version.
     * Mirrors ONNX Runtime's {@code Graph_GetOperatorSets}.
     *
     * @return the opset imports of the model
     */
    Map<String, Integer> opsetImports();

    /**
     * Gets the model's IR version.
     * Mirrors ONNX Runtime's {@code Graph_GetOnnxIRVersion}.
     *
     * @return the IR version
     */
    long irVersion();

    /**
     * Gets the model file's path.
     * Mirrors ONNX Runtime's {@code Graph_GetModelPath}.
     *
     * @return the path, or empty when the model was loaded from bytes
     */
    Optional<Path> modelPath();

    /**
     * Gets the node that holds this graph as an attribute.
     * Mirrors ONNX Runtime's {@code Graph_GetParentNode}.
     *
     * @return the parent node, or empty for the main graph and for group views
     */
    Optional<NodeView> parentNode();

    /**
     * Gets the model's metadata ({@code metadata_props}).
     * Mirrors ONNX Runtime's {@code Graph_GetModelMetadata}.
     *
     * @return the metadata
     */
    Map<String, String> modelMetadata();

    /**
     * Reads an EPContext node of this graph with its payload, for an EP compiling the node in
     * {@link ExecutionProvider#compile}. With {@code embed_mode=1} the payload is the {@code ep_cache_context}
     * attribute's bytes; with {@code embed_mode=0} it is the content of the file that attribute names, relative to
     * the model's folder (or, for a model loaded from bytes, to the folder of the session's
     * {@code ep.context_file_path}); a path that is absolute or leads out of that folder is refused. Default:
     * unsupported, as only the graphs the runtime hands to {@code compile} can read payloads.
     * ONNX Runtime's EPs read an EPContext node's attributes and context file themselves; the runtime does it here.
     *
     * @param node an EPContext node of this graph
     * @return the node's attributes and payload
     * @throws io.ortex.api.InvalidModelException when the node is not an EPContext node, lacks
     *     {@code ep_cache_context}, or its file cannot be read or lies outside the model's folder
     * @throws io.ortex.api.NotImplementedException when this view cannot read payloads
     */
    default EpContextNode epContext(NodeView node) {
        throw new io.ortex.api.NotImplementedException("this graph view cannot read the EPContext payload of node '"
                + node.displayName() + "'");
    }

    /**
     * Gives a view of some of this graph's nodes as a graph of their own, the counterpart of ONNX Runtime's
     * {@code Graph_GetGraphView}: its nodes are the given ones in this graph's order; its inputs are the values they
     * read from outside the set, constant initializers excepted; its {@link #initializers()} are the constant
     * initializers they read; its outputs are the values they produce that a node outside the set, or this graph's
     * caller, reads. An EP uses it in {@link ExecutionProvider#getCapability} to try a candidate group, for
     * instance by {@linkplain #exportModel exporting} it. Valid as long as this view is. Added in package version
     * 0.3.0; the default, for views that cannot do it, throws.
     *
     * @param nodes nodes of this graph, at least one
     * @return the view
     * @throws io.ortex.api.InvalidArgumentException when a node is not one of this graph's or none is given
     * @throws io.ortex.api.NotImplementedException when this view cannot make sub-views
     */
    default GraphView viewOf(List<NodeView> nodes) {
        throw new io.ortex.api.NotImplementedException("graph view '" + name() + "' cannot make a view of some of its "
                + "nodes");
    }

    /**
     * Writes this graph as a standalone ONNX model, so that an EP can hand a partition to a library that reads ONNX
     * (ONNX Runtime, a vendor compiler) without depending on Ortex's ONNX classes. The model has this graph's nodes
     * (attributes and nested subgraphs as in the source), its {@link #inputs()} as graph inputs in order (types as
     * the source declares them, else from {@link ModelExportOptions#inputElementTypes()}), its {@link #outputs()}
     * as graph outputs in order, every constant initializer its nodes read that is not an input as an initializer,
     * the source's value types of the values inside, and the source model's IR version, opset imports and local
     * functions. Added in package version 0.3.0; the default, for views that cannot do it, throws.
     *
     * @param options how to write it
     * @return the model and the names its nodes got
     * @throws io.ortex.api.NotImplementedException when this view cannot be exported
     */
    default ModelExport exportModel(ModelExportOptions options) {
        throw new io.ortex.api.NotImplementedException("graph view '" + name() + "' cannot be exported as a model");
    }
}
