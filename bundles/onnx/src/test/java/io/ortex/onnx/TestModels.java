package io.ortex.onnx;

import com.google.protobuf.ByteString;
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
import java.util.Arrays;
import java.util.stream.Stream;

/** Builds tiny ONNX models with the generated protobuf classes, for the tests of this package. */
final class TestModels {
    static final int FLOAT = TensorProto.DataType.FLOAT_VALUE;

    private TestModels() {
    }

    /** A float tensor value declaration with fixed dimensions. */
    static ValueInfoProto value(String name, long... dims) {
        TensorShapeProto.Builder shape = TensorShapeProto.newBuilder();
        for (long d : dims) {
            shape.addDim(TensorShapeProto.Dimension.newBuilder().setDimValue(d));
        }
        return ValueInfoProto.newBuilder().setName(name).setType(TypeProto.newBuilder()
                .setTensorType(TypeProto.Tensor.newBuilder().setElemType(FLOAT).setShape(shape))).build();
    }

    /** A node of the default domain; {@code inputs} and {@code outputs} are comma-separated, empty names allowed. */
    static NodeProto node(String name, String op, String inputs, String outputs, AttributeProto... attributes) {
        return NodeProto.newBuilder().setName(name).setOpType(op).addAllInput(split(inputs))
                .addAllOutput(split(outputs)).addAllAttribute(Arrays.asList(attributes)).build();
    }

    private static java.util.List<String> split(String names) {
        return names.isEmpty() ? java.util.List.of() : Arrays.asList(names.split(",", -1));
    }

    /** A graph attribute. */
    static AttributeProto graphAttr(String name, GraphProto g) {
        return AttributeProto.newBuilder().setName(name).setType(AttributeProto.AttributeType.GRAPH).setG(g).build();
    }

    /** Floats enough for an initializer to pass {@link OnnxModel#RELEASE_THRESHOLD}. */
    static final int LARGE = OnnxModel.RELEASE_THRESHOLD / 4 + 16;

    /** The values 0, scale, 2 scale, ... */
    static float[] ramp(int n, float scale) {
        float[] v = new float[n];
        for (int i = 0; i < n; i++) {
            v[i] = i * scale;
        }
        return v;
    }

    /** A float tensor with its elements in {@code raw_data}. */
    static TensorProto floats(String name, float[] values, long... dims) {
        ByteBuffer b = ByteBuffer.allocate(values.length * 4).order(ByteOrder.LITTLE_ENDIAN);
        b.asFloatBuffer().put(values);
        return TensorProto.newBuilder().setName(name).setDataType(FLOAT).addAllDims(boxed(dims))
                .setRawData(ByteString.copyFrom(b.array())).build();
    }

    static Iterable<Long> boxed(long... dims) {
        return () -> Arrays.stream(dims).boxed().iterator();
    }

    /** A tensor message whose data lives in an external file. */
    static TensorProto external(String name, String location, long offset, long length, long... dims) {
        TensorProto.Builder t = TensorProto.newBuilder().setName(name).setDataType(FLOAT).addAllDims(boxed(dims))
                .setDataLocation(TensorProto.DataLocation.EXTERNAL).addExternalData(entry("location", location));
        if (offset >= 0) {
            t.addExternalData(entry("offset", Long.toString(offset)));
        }
        if (length >= 0) {
            t.addExternalData(entry("length", Long.toString(length)));
        }
        return t.build();
    }

    static StringStringEntryProto entry(String key, String value) {
        return StringStringEntryProto.newBuilder().setKey(key).setValue(value).build();
    }

    /** A model around a graph: IR version 8, ONNX opset 17. */
    static ModelProto model(GraphProto graph) {
        return ModelProto.newBuilder().setIrVersion(8).setProducerName("ortex-test")
                .addOpsetImport(OperatorSetIdProto.newBuilder().setDomain("").setVersion(17))
                .setGraph(graph).build();
    }

    /** Y = X + W, W a 2x2 initializer. */
    static GraphProto addGraph() {
        return GraphProto.newBuilder().setName("add")
                .addInput(value("X", 2, 2))
                .addInitializer(floats("W", new float[] {1, 2, 3, 4}, 2, 2))
                .addNode(node("add", "Add", "X,W", "Y"))
                .addOutput(value("Y", 2, 2)).build();
    }

    /** Writes bytes to a file in a folder and returns the file. */
    static Path write(Path folder, String name, byte[] bytes) throws IOException {
        Path file = folder.resolve(name);
        Files.write(file, bytes);
        return file;
    }

    /** Writes a model to a file in a folder and returns the file. */
    static Path write(Path folder, String name, ModelProto model) throws IOException {
        return write(folder, name, model.toByteArray());
    }

    /** The files of a folder, sorted by name. */
    static String[] list(Path folder) throws IOException {
        try (Stream<Path> s = Files.list(folder)) {
            return s.map(p -> p.getFileName().toString()).sorted().toArray(String[]::new);
        }
    }
}
