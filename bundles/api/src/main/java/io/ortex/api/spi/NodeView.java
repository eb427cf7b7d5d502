package io.ortex.api.spi;

import io.ortex.api.Tensor;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A read-only view of one node, the counterpart of ONNX Runtime's {@code OrtNode}.
 */
public interface NodeView {
    /**
     * Gets the node's index in its graph, stable for the graph's lifetime.
     *
     * @return the id
     */
    int id();

    /**
     * Gets the node's name as written in the model.
     * Mirrors ONNX Runtime's {@code Node_GetName}.
     *
     * @return the name, possibly empty
     */
    String name();

    /**
     * Gets a name fit for messages: the node's name, or {@code <opType>_<id>} when it has none.
     * Ortex's own, for messages: ONNX Runtime's {@code Node_GetName} may be empty.
     *
     * @return a non-empty name
     */
    default String displayName() {
        return name().isEmpty() ? opType() + "_" + id() : name();
    }

    /**
     * Gets the operator type, such as {@code Conv}.
     * Mirrors ONNX Runtime's {@code Node_GetOperatorType}.
     *
     * @return the operator type
     */
    String opType();

    /**
     * Gets the operator domain, {@code ""} for the default ONNX domain.
     * Mirrors ONNX Runtime's {@code Node_GetDomain}.
     *
     * @return the domain
     */
    String domain();

    /**
     * Gets the opset version in force for this node's domain (from the model's opset imports).
     * Mirrors ONNX Runtime's {@code Node_GetSinceVersion}.
     *
     * @return the opset version
     */
    int opsetVersion();

    /**
     * Gets the inputs, in order; an omitted optional input is {@code null}.
     * Mirrors ONNX Runtime's {@code Node_GetInputs}.
     *
     * @return the inputs
     */
    List<ValueView> inputs();

    /**
     * Gets the outputs, in order; an omitted optional output is {@code null}.
     * Mirrors ONNX Runtime's {@code Node_GetOutputs}.
     *
     * @return the outputs
     */
    List<ValueView> outputs();

    /**
     * Gets the values from enclosing scopes that this node's subgraphs read.
     * Mirrors ONNX Runtime's {@code Node_GetImplicitInputs}.
     *
     * @return the implicit inputs
     */
    List<ValueView> implicitInputs();

    /**
     * Gets the attributes set on the node, by name.
     * Mirrors ONNX Runtime's {@code Node_GetAttributes}.
     *
     * @return the attributes
     */
    Map<String, Attribute> attributes();

    /**
     * Gets the subgraphs held by graph attributes, by attribute name.
     * Mirrors ONNX Runtime's {@code Node_GetSubgraphs}.
     *
     * @return the subgraphs
     */
    Map<String, GraphView> subgraphs();

    /**
     * Finds an attribute.
     * Mirrors ONNX Runtime's {@code Node_GetAttributeByName}.
     *
     * @param name the attribute name
     * @return the attribute, or empty when it is not set
     */
    default Optional<Attribute> attribute(String name) {
        return Optional.ofNullable(attributes().get(name));
    }

    /**
     * Reads an integer attribute.
     * ONNX Runtime's {@code Node_GetAttributeByName} followed by {@code ReadOpAttr}.
     *
     * @param name the attribute name
     * @param defaultValue the value when it is not set
     * @return the value
     */
    default long intAttr(String name, long defaultValue) {
        Attribute a = attributes().get(name);
        return a == null ? defaultValue : a.asInt();
    }

    /**
     * Reads a float attribute.
     * ONNX Runtime's {@code Node_GetAttributeByName} followed by {@code ReadOpAttr}.
     *
     * @param name the attribute name
     * @param defaultValue the value when it is not set
     * @return the value
     */
    default float floatAttr(String name, float defaultValue) {
        Attribute a = attributes().get(name);
        return a == null ? defaultValue : a.asFloat();
    }

    /**
     * Reads a string attribute.
     * ONNX Runtime's {@code Node_GetAttributeByName} followed by {@code ReadOpAttr}.
     *
     * @param name the attribute name
     * @param defaultValue the value when it is not set
     * @return the value
     */
    default String stringAttr(String name, String defaultValue) {
        Attribute a = attributes().get(name);
        return a == null ? defaultValue : a.asString();
    }

    /**
     * Reads an integer-list attribute.
     * ONNX Runtime's {@code Node_GetAttributeByName} followed by {@code ReadOpAttr}.
     *
     * @param name the attribute name
     * @param defaultValue the value when it is not set (may be {@code null})
     * @return the value (a copy)
     */
    default long[] intsAttr(String name, long[] defaultValue) {
        Attribute a = attributes().get(name);
        return a == null ? defaultValue : a.asInts();
    }

    /**
     * Reads a float-list attribute.
     * ONNX Runtime's {@code Node_GetAttributeByName} followed by {@code ReadOpAttr}.
     *
     * @param name the attribute name
     * @param defaultValue the value when it is not set (may be {@code null})
     * @return the value (a copy)
     */
    default float[] floatsAttr(String name, float[] defaultValue) {
        Attribute a = attributes().get(name);
        return a == null ? defaultValue : a.asFloats();
    }

    /**
     * Reads a tensor attribute.
     * ONNX Runtime's {@code Node_GetAttributeByName} followed by {@code ReadOpAttr}.
     *
     * @param name the attribute name
     * @return the tensor, or {@code null} when it is not set
     */
    default Tensor tensorAttr(String name) {
        Attribute a = attributes().get(name);
        return a == null ? null : a.asTensor();
    }
}
