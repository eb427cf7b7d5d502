package io.ortex.api.spi;

import io.ortex.api.InvalidModelException;
import io.ortex.api.Tensor;
import java.util.List;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * One node attribute, decoded: numbers as Java primitives, strings as UTF-8 text, tensors as {@link Tensor}s and
 * graphs as {@link GraphView}s. Immutable.
 */
public final class Attribute {
    private final String name;
    private final AttributeType type;
    private final Object value;

    private Attribute(String name, AttributeType type, Object value) {
        this.name = Objects.requireNonNull(name, "name");
        this.type = Objects.requireNonNull(type, "type");
        this.value = Objects.requireNonNull(value, "value");
    }

    /**
     * Creates a float attribute.
     * Mirrors ONNX Runtime's {@code CreateOpAttr} (model editor API), with which an EP builds its EPContext nodes'
     * attributes.
     *
     * @param name the name
     * @param value the value
     * @return the attribute
     */
    public static Attribute ofFloat(String name, float value) {
        return new Attribute(name, AttributeType.FLOAT, value);
    }

    /**
     * Creates an integer attribute.
     * Mirrors ONNX Runtime's {@code CreateOpAttr} (model editor API), with which an EP builds its EPContext nodes'
     * attributes.
     *
     * @param name the name
     * @param value the value
     * @return the attribute
     */
    public static Attribute ofInt(String name, long value) {
        return new Attribute(name, AttributeType.INT, value);
    }

    /**
     * Creates a string attribute.
     * Mirrors ONNX Runtime's {@code CreateOpAttr} (model editor API), with which an EP builds its EPContext nodes'
     * attributes.
     *
     * @param name the name
     * @param value the value
     * @return the attribute
     */
    public static Attribute ofString(String name, String value) {
        return new Attribute(name, AttributeType.STRING, value);
    }

    /**
     * Creates a string attribute whose value is made when first read, once: for a model reader, whose string
     * attributes are bytes that may be large and are rarely read as text (an EPContext node's embedded payload).
     * Added in package version 0.3.0.
     * Mirrors ONNX Runtime's {@code CreateOpAttr} (model editor API), with which an EP builds its EPContext nodes'
     * attributes.
     *
     * @param name the name
     * @param value makes the value; called at most once, on the first thread that reads it
     * @return the attribute
     */
    public static Attribute ofDeferredString(String name, Supplier<String> value) {
        return new Attribute(name, AttributeType.STRING, new LazyString(value));
    }

    /** A string made when first read. */
    private static final class LazyString {
        private Supplier<String> maker;
        private String value;

        LazyString(Supplier<String> maker) {
            this.maker = Objects.requireNonNull(maker, "value");
        }

        synchronized String get() {
            if (value == null) {
                value = Objects.requireNonNull(maker.get(), "value");
                maker = null;
            }
            return value;
        }
    }

    /**
     * Creates a tensor attribute.
     * Mirrors ONNX Runtime's {@code CreateOpAttr} (model editor API), with which an EP builds its EPContext nodes'
     * attributes.
     *
     * @param name the name
     * @param value the value
     * @return the attribute
     */
    public static Attribute ofTensor(String name, Tensor value) {
        return new Attribute(name, AttributeType.TENSOR, value);
    }

    /**
     * Creates a graph attribute.
     * Mirrors ONNX Runtime's {@code CreateOpAttr} (model editor API), with which an EP builds its EPContext nodes'
     * attributes.
     *
     * @param name the name
     * @param value the value
     * @return the attribute
     */
    public static Attribute ofGraph(String name, GraphView value) {
        return new Attribute(name, AttributeType.GRAPH, value);
    }

    /**
     * Creates a float-list attribute.
     * Mirrors ONNX Runtime's {@code CreateOpAttr} (model editor API), with which an EP builds its EPContext nodes'
     * attributes.
     *
     * @param name the name
     * @param value the values (copied)
     * @return the attribute
     */
    public static Attribute ofFloats(String name, float[] value) {
        return new Attribute(name, AttributeType.FLOATS, value.clone());
    }

    /**
     * Creates an integer-list attribute.
     * Mirrors ONNX Runtime's {@code CreateOpAttr} (model editor API), with which an EP builds its EPContext nodes'
     * attributes.
     *
     * @param name the name
     * @param value the values (copied)
     * @return the attribute
     */
    public static Attribute ofInts(String name, long[] value) {
        return new Attribute(name, AttributeType.INTS, value.clone());
    }

    /**
     * Creates a string-list attribute.
     * Mirrors ONNX Runtime's {@code CreateOpAttr} (model editor API), with which an EP builds its EPContext nodes'
     * attributes.
     *
     * @param name the name
     * @param value the values
     * @return the attribute
     */
    public static Attribute ofStrings(String name, List<String> value) {
        return new Attribute(name, AttributeType.STRINGS, List.copyOf(value));
    }

    /**
     * Creates a tensor-list attribute.
     * Mirrors ONNX Runtime's {@code CreateOpAttr} (model editor API), with which an EP builds its EPContext nodes'
     * attributes.
     *
     * @param name the name
     * @param value the values
     * @return the attribute
     */
    public static Attribute ofTensors(String name, List<Tensor> value) {
        return new Attribute(name, AttributeType.TENSORS, List.copyOf(value));
    }

    /**
     * Creates a graph-list attribute.
     * Mirrors ONNX Runtime's {@code CreateOpAttr} (model editor API), with which an EP builds its EPContext nodes'
     * attributes.
     *
     * @param name the name
     * @param value the values
     * @return the attribute
     */
    public static Attribute ofGraphs(String name, List<GraphView> value) {
        return new Attribute(name, AttributeType.GRAPHS, List.copyOf(value));
    }

    /**
     * Gets the attribute's name.
     * Mirrors ONNX Runtime's {@code OpAttr_GetName}.
     *
     * @return the name
     */
    public String name() {
        return name;
    }

    /**
     * Gets the attribute's type.
     * Mirrors ONNX Runtime's {@code OpAttr_GetType}.
     *
     * @return the type
     */
    public AttributeType type() {
        return type;
    }

    /**
     * Reads a float attribute; an integer attribute is widened.
     * Mirrors ONNX Runtime's {@code ReadOpAttr}.
     *
     * @return the value
     * @throws InvalidModelException when the attribute is of another type
     */
    public float asFloat() {
        if (type == AttributeType.INT) {
            return (Long) value;
        }
        return (Float) expect(AttributeType.FLOAT);
    }

    /**
     * Reads an integer attribute.
     * Mirrors ONNX Runtime's {@code ReadOpAttr}.
     *
     * @return the value
     */
    public long asInt() {
        return (Long) expect(AttributeType.INT);
    }

    /**
     * Reads a string attribute.
     * Mirrors ONNX Runtime's {@code ReadOpAttr}.
     *
     * @return the value
     */
    public String asString() {
        Object v = expect(AttributeType.STRING);
        return v instanceof LazyString lazy ? lazy.get() : (String) v;
    }

    /**
     * Reads a tensor attribute.
     * Mirrors ONNX Runtime's {@code OpAttr_GetTensorAttributeAsOrtValue}.
     *
     * @return the value
     */
    public Tensor asTensor() {
        return (Tensor) expect(AttributeType.TENSOR);
    }

    /**
     * Reads a graph attribute.
     * ONNX Runtime hands graph attributes out through {@code Node_GetSubgraphs} instead.
     *
     * @return the value
     */
    public GraphView asGraph() {
        return (GraphView) expect(AttributeType.GRAPH);
    }

    /**
     * Reads a float-list attribute.
     * Mirrors ONNX Runtime's {@code ReadOpAttr}.
     *
     * @return a copy of the values
     */
    public float[] asFloats() {
        return ((float[]) expect(AttributeType.FLOATS)).clone();
    }

    /**
     * Reads an integer-list attribute.
     * Mirrors ONNX Runtime's {@code ReadOpAttr}.
     *
     * @return a copy of the values
     */
    public long[] asInts() {
        return ((long[]) expect(AttributeType.INTS)).clone();
    }

    /**
     * Reads a string-list attribute.
     *
     * @return the values
     */
    @SuppressWarnings("unchecked")
    public List<String> asStrings() {
        return (List<String>) expect(AttributeType.STRINGS);
    }

    /**
     * Reads a tensor-list attribute.
     *
     * @return the values
     */
    @SuppressWarnings("unchecked")
    public List<Tensor> asTensors() {
        return (List<Tensor>) expect(AttributeType.TENSORS);
    }

    /**
     * Reads a graph-list attribute.
     *
     * @return the values
     */
    @SuppressWarnings("unchecked")
    public List<GraphView> asGraphs() {
        return (List<GraphView>) expect(AttributeType.GRAPHS);
    }

    private Object expect(AttributeType wanted) {
        if (type != wanted) {
            throw new InvalidModelException("attribute '" + name + "' is " + type + ", expected " + wanted);
        }
        return value;
    }

    @Override
    public String toString() {
        return name + ":" + type;
    }
}
