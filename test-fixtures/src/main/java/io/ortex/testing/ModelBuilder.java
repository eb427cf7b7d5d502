package io.ortex.testing;

import com.google.protobuf.ByteString;
import io.ortex.api.ElementType;
import io.ortex.api.Tensor;
import io.ortex.onnx.ModelReader;
import io.ortex.onnx.OnnxModel;
import io.ortex.onnx.TensorCodec;
import io.ortex.onnx.proto.Onnx.AttributeProto;
import io.ortex.onnx.proto.Onnx.GraphProto;
import io.ortex.onnx.proto.Onnx.ModelProto;
import io.ortex.onnx.proto.Onnx.NodeProto;
import io.ortex.onnx.proto.Onnx.OperatorSetIdProto;
import io.ortex.onnx.proto.Onnx.StringStringEntryProto;
import io.ortex.onnx.proto.Onnx.TensorProto;
import io.ortex.onnx.proto.Onnx.TensorShapeProto;
import io.ortex.onnx.proto.Onnx.TypeProto;
import io.ortex.onnx.proto.Onnx.ValueInfoProto;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Builds small ONNX models for tests with the protobuf classes: graph inputs and outputs (typed, with shapes whose
 * negative dimensions are symbolic, or untyped), initializers (from tensors, or raw bytes that need not agree with
 * their dimensions, for tests of bad input), nodes of any domain with attributes ({@link Attributes}), and the model's
 * IR version, opsets and metadata. Defaults: IR version 8, ONNX opset 17. Not thread safe; one builder per model.
 */
public final class ModelBuilder {
    private final GraphProto.Builder graph = GraphProto.newBuilder().setName("test");
    private final Map<String, Long> opsets = new LinkedHashMap<>(Map.of("", 17L));
    private final Map<String, String> metadata = new LinkedHashMap<>();
    private long irVersion = 8;

    /** Starts an empty model. */
    public ModelBuilder() {
    }

    /**
     * Sets the IR version.
     *
     * @param version the version
     * @return this builder
     */
    public ModelBuilder ir(long version) {
        irVersion = version;
        return this;
    }

    /**
     * Sets the ONNX (default domain) opset.
     *
     * @param version the version
     * @return this builder
     */
    public ModelBuilder opset(long version) {
        return opset("", version);
    }

    /**
     * Imports a domain's opset.
     *
     * @param domain the domain, empty for ONNX's
     * @param version the version
     * @return this builder
     */
    public ModelBuilder opset(String domain, long version) {
        opsets.put(domain, version);
        return this;
    }

    /**
     * Adds a metadata entry ({@code metadata_props}).
     *
     * @param key the key
     * @param value the value
     * @return this builder
     */
    public ModelBuilder metadata(String key, String value) {
        metadata.put(key, value);
        return this;
    }

    /**
     * Adds a float32 graph input.
     *
     * @param name the name
     * @param dims its shape, a negative dimension symbolic; {@code null} for no declared shape
     * @return this builder
     */
    public ModelBuilder input(String name, long... dims) {
        return input(name, ElementType.FLOAT, dims);
    }

    /**
     * Adds a typed graph input.
     *
     * @param name the name
     * @param type the element type
     * @param dims its shape, a negative dimension symbolic; {@code null} for no declared shape
     * @return this builder
     */
    public ModelBuilder input(String name, ElementType type, long... dims) {
        graph.addInput(valueInfo(name, type, dims));
        return this;
    }

    /**
     * Adds a graph input without a declared type.
     *
     * @param name the name
     * @return this builder
     */
    public ModelBuilder untypedInput(String name) {
        graph.addInput(ValueInfoProto.newBuilder().setName(name));
        return this;
    }

    /**
     * Adds a graph output without a declared type.
     *
     * @param name the name
     * @return this builder
     */
    public ModelBuilder output(String name) {
        graph.addOutput(ValueInfoProto.newBuilder().setName(name));
        return this;
    }

    /**
     * Adds a float32 graph output.
     *
     * @param name the name
     * @param dims its shape, a negative dimension symbolic; {@code null} for no declared shape
     * @return this builder
     */
    public ModelBuilder output(String name, long... dims) {
        return output(name, ElementType.FLOAT, dims);
    }

    /**
     * Adds a typed graph output without a declared shape.
     *
     * @param name the name
     * @param type the element type
     * @return this builder
     */
    public ModelBuilder output(String name, ElementType type) {
        return output(name, type, (long[]) null);
    }

    /**
     * Adds a typed graph output.
     *
     * @param name the name
     * @param type the element type
     * @param dims its shape (none for a scalar), a negative dimension symbolic; {@code null} for no declared shape
     * @return this builder
     */
    public ModelBuilder output(String name, ElementType type, long... dims) {
        graph.addOutput(valueInfo(name, type, dims));
        return this;
    }

    /**
     * Declares the type of an intermediate value.
     *
     * @param name the value's name
     * @param type its element type
     * @return this builder
     */
    public ModelBuilder valueInfo(String name, ElementType type) {
        graph.addValueInfo(valueInfo(name, type, (long[]) null));
        return this;
    }

    /**
     * Adds a constant initializer.
     *
     * @param name the name
     * @param value the value
     * @return this builder
     */
    public ModelBuilder initializer(String name, Tensor value) {
        graph.addInitializer(TensorCodec.toProto(value, name));
        return this;
    }

    /**
     * Adds a float32 initializer whose raw data holds the given values, whatever its dimensions say (tests of
     * initializers whose data and shape disagree).
     *
     * @param name the name
     * @param dims its dimensions
     * @param data its values
     * @return this builder
     */
    public ModelBuilder floats(String name, long[] dims, float... data) {
        ByteBuffer b = ByteBuffer.allocate(data.length * 4).order(ByteOrder.LITTLE_ENDIAN);
        for (float f : data) {
            b.putFloat(f);
        }
        return rawInitializer(name, ElementType.FLOAT, dims, b.array());
    }

    /**
     * Adds an initializer from raw bytes, whatever its type and dimensions say.
     *
     * @param name the name
     * @param type its element type
     * @param dims its dimensions
     * @param raw its raw data
     * @return this builder
     */
    public ModelBuilder rawInitializer(String name, ElementType type, long[] dims, byte[] raw) {
        TensorProto.Builder t = TensorProto.newBuilder().setName(name).setDataType(type.code())
                .setRawData(ByteString.copyFrom(raw));
        for (long d : dims) {
            t.addDims(d);
        }
        graph.addInitializer(t);
        return this;
    }

    /**
     * Adds an int64 initializer stored in {@code int64_data}.
     *
     * @param name the name
     * @param data its values
     * @param dims its dimensions
     * @return this builder
     */
    public ModelBuilder longs(String name, long[] data, long... dims) {
        TensorProto.Builder t = TensorProto.newBuilder().setName(name).setDataType(ElementType.INT64.code());
        for (long d : dims) {
            t.addDims(d);
        }
        for (long v : data) {
            t.addInt64Data(v);
        }
        graph.addInitializer(t);
        return this;
    }

    /**
     * Adds a node the caller built (with attributes of any kind, say).
     *
     * @param node the node
     * @return this builder
     */
    public ModelBuilder node(NodeProto.Builder node) {
        graph.addNode(node);
        return this;
    }

    /**
     * Adds a node of the ONNX domain.
     *
     * @param op the operator
     * @param name the node's name
     * @param inputs its inputs; an empty name is an omitted optional input
     * @param outputs its outputs
     * @param attributes its attributes
     * @return this builder
     */
    public ModelBuilder node(String op, String name, List<String> inputs, List<String> outputs,
                             AttributeProto... attributes) {
        return node("", op, name, inputs, outputs, attributes);
    }

    /**
     * Adds a node of a domain.
     *
     * @param domain the domain, empty for ONNX's
     * @param op the operator
     * @param name the node's name
     * @param inputs its inputs; an empty name is an omitted optional input
     * @param outputs its outputs
     * @param attributes its attributes
     * @return this builder
     */
    public ModelBuilder node(String domain, String op, String name, List<String> inputs, List<String> outputs,
                             AttributeProto... attributes) {
        NodeProto.Builder node = NodeProto.newBuilder().setOpType(op).setName(name).setDomain(domain)
                .addAllInput(inputs).addAllOutput(outputs);
        for (AttributeProto a : attributes) {
            node.addAttribute(a);
        }
        graph.addNode(node);
        return this;
    }

    /**
     * Gets the model message.
     *
     * @return the model
     */
    public ModelProto proto() {
        ModelProto.Builder m = ModelProto.newBuilder().setIrVersion(irVersion).setProducerName("ortex-tests")
                .setGraph(graph);
        opsets.forEach((domain, version) -> m.addOpsetImport(OperatorSetIdProto.newBuilder().setDomain(domain)
                .setVersion(version)));
        metadata.forEach((k, v) -> m.addMetadataProps(StringStringEntryProto.newBuilder().setKey(k).setValue(v)));
        return m.build();
    }

    /**
     * Gets the serialized model.
     *
     * @return the bytes
     */
    public byte[] bytes() {
        return proto().toByteArray();
    }

    /**
     * Reads the model back as the runtime does.
     *
     * @return the model
     */
    public OnnxModel build() {
        return ModelReader.read(bytes(), null);
    }

    /**
     * Writes the model to a file, creating its folder.
     *
     * @param file the file
     * @return the file
     * @throws IOException when it cannot be written
     */
    public Path write(Path file) throws IOException {
        Path parent = file.toAbsolutePath().getParent();
        if (parent != null) {
            Files.createDirectories(parent);
        }
        Files.write(file, bytes());
        return file;
    }

    /**
     * Writes the model into a folder.
     *
     * @param dir the folder
     * @param file the file name
     * @return the file
     * @throws IOException when it cannot be written
     */
    public Path write(Path dir, String file) throws IOException {
        return write(dir.resolve(file));
    }

    /**
     * Makes the declaration of a value.
     *
     * @param name the name
     * @param type the element type
     * @param dims its shape, a negative dimension symbolic ({@code N}); {@code null} for no declared shape
     * @return the value info
     */
    public static ValueInfoProto valueInfo(String name, ElementType type, long... dims) {
        TypeProto.Tensor.Builder tensor = TypeProto.Tensor.newBuilder().setElemType(type.code());
        if (dims != null) {
            TensorShapeProto.Builder shape = TensorShapeProto.newBuilder();
            for (long d : dims) {
                shape.addDim(d >= 0 ? TensorShapeProto.Dimension.newBuilder().setDimValue(d)
                        : TensorShapeProto.Dimension.newBuilder().setDimParam("N"));
            }
            tensor.setShape(shape);
        }
        return ValueInfoProto.newBuilder().setName(name).setType(TypeProto.newBuilder().setTensorType(tensor))
                .build();
    }
}
