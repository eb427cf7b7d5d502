package io.ortex.ep.example;

import com.google.protobuf.ByteString;
import io.ortex.api.ElementType;
import io.ortex.api.Tensor;
import io.ortex.onnx.ModelReader;
import io.ortex.onnx.OnnxModel;
import io.ortex.onnx.TensorCodec;
import io.ortex.onnx.proto.Onnx;
import java.util.List;

/** Builds tiny ONNX models with the protobuf classes, for the tests. */
final class ModelBuilder {
    private final Onnx.GraphProto.Builder graph = Onnx.GraphProto.newBuilder().setName("test");
    private int opset = 17;

    /** Sets the default-domain opset (17 unless set). */
    ModelBuilder opset(int version) {
        opset = version;
        return this;
    }

    /** Adds a typed graph input; {@code dims == null} leaves the shape undeclared, -1 is a symbolic dimension. */
    ModelBuilder input(String name, ElementType type, long... dims) {
        graph.addInput(valueInfo(name, type, dims));
        return this;
    }

    /** Adds a float32 graph input of a given shape. */
    ModelBuilder input(String name, long... dims) {
        return input(name, ElementType.FLOAT, dims);
    }

    /** Adds a graph input without a declared type. */
    ModelBuilder untypedInput(String name) {
        graph.addInput(Onnx.ValueInfoProto.newBuilder().setName(name));
        return this;
    }

    /** Adds a constant initializer. */
    ModelBuilder initializer(String name, Tensor value) {
        graph.addInitializer(TensorCodec.toProto(value, name));
        return this;
    }

    /** Declares the type of an intermediate value. */
    ModelBuilder valueInfo(String name, ElementType type) {
        graph.addValueInfo(valueInfo(name, type, (long[]) null));
        return this;
    }

    /** Adds a default-domain node with one output. */
    ModelBuilder node(String name, String op, List<String> inputs, String output, Onnx.AttributeProto... attrs) {
        return node(name, "", op, inputs, List.of(output), attrs);
    }

    /** Adds a node; an empty input name is an omitted optional input. */
    ModelBuilder node(String name, String domain, String op, List<String> inputs, List<String> outputs,
                      Onnx.AttributeProto... attrs) {
        Onnx.NodeProto.Builder node = Onnx.NodeProto.newBuilder().setName(name).setOpType(op).setDomain(domain)
                .addAllInput(inputs).addAllOutput(outputs);
        for (Onnx.AttributeProto a : attrs) {
            node.addAttribute(a);
        }
        graph.addNode(node);
        return this;
    }

    /** Adds a graph output without a declared type. */
    ModelBuilder output(String name) {
        graph.addOutput(Onnx.ValueInfoProto.newBuilder().setName(name));
        return this;
    }

    /** Adds a typed graph output. */
    ModelBuilder output(String name, ElementType type) {
        graph.addOutput(valueInfo(name, type, (long[]) null));
        return this;
    }

    /** Gets the model message. */
    Onnx.ModelProto proto() {
        Onnx.ModelProto.Builder model = Onnx.ModelProto.newBuilder().setIrVersion(8).setGraph(graph)
                .addOpsetImport(Onnx.OperatorSetIdProto.newBuilder().setDomain("").setVersion(opset));
        return model.build();
    }

    /** Reads the model back as the runtime would. */
    OnnxModel build() {
        return ModelReader.read(proto().toByteArray(), null);
    }

    private static Onnx.ValueInfoProto valueInfo(String name, ElementType type, long[] dims) {
        Onnx.TypeProto.Tensor.Builder tensor = Onnx.TypeProto.Tensor.newBuilder().setElemType(type.code());
        if (dims != null) {
            Onnx.TensorShapeProto.Builder shape = Onnx.TensorShapeProto.newBuilder();
            for (long d : dims) {
                shape.addDim(d >= 0 ? Onnx.TensorShapeProto.Dimension.newBuilder().setDimValue(d)
                        : Onnx.TensorShapeProto.Dimension.newBuilder().setDimParam("n"));
            }
            tensor.setShape(shape);
        }
        return Onnx.ValueInfoProto.newBuilder().setName(name)
                .setType(Onnx.TypeProto.newBuilder().setTensorType(tensor)).build();
    }

    /** An integer attribute. */
    static Onnx.AttributeProto attr(String name, long value) {
        return Onnx.AttributeProto.newBuilder().setName(name).setType(Onnx.AttributeProto.AttributeType.INT)
                .setI(value).build();
    }

    /** A float attribute. */
    static Onnx.AttributeProto attr(String name, float value) {
        return Onnx.AttributeProto.newBuilder().setName(name).setType(Onnx.AttributeProto.AttributeType.FLOAT)
                .setF(value).build();
    }

    /** A string attribute. */
    static Onnx.AttributeProto attr(String name, String value) {
        return Onnx.AttributeProto.newBuilder().setName(name).setType(Onnx.AttributeProto.AttributeType.STRING)
                .setS(ByteString.copyFromUtf8(value)).build();
    }

    /** An integer-list attribute. */
    static Onnx.AttributeProto ints(String name, long... values) {
        Onnx.AttributeProto.Builder b = Onnx.AttributeProto.newBuilder().setName(name)
                .setType(Onnx.AttributeProto.AttributeType.INTS);
        for (long v : values) {
            b.addInts(v);
        }
        return b.build();
    }
}
