package io.ortex.shell;

import com.google.protobuf.ByteString;
import io.ortex.onnx.proto.Onnx.GraphProto;
import io.ortex.onnx.proto.Onnx.ModelProto;
import io.ortex.onnx.proto.Onnx.NodeProto;
import io.ortex.onnx.proto.Onnx.OperatorSetIdProto;
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
import java.util.List;

/** Tiny ONNX models for the command-line tests, built with the protobuf classes. */
final class Models {
    static final int FLOAT = TensorProto.DataType.FLOAT_VALUE;

    private Models() {
    }

    /** A graph under construction; {@link #model()} wraps it in IR version 8, ONNX opset 17. */
    static final class Builder {
        final GraphProto.Builder graph = GraphProto.newBuilder().setName("g");
        long irVersion = 8;
        long opset = 17;

        Builder input(String name, long... dims) {
            graph.addInput(valueInfo(name, dims));
            return this;
        }

        Builder output(String name, long... dims) {
            graph.addOutput(valueInfo(name, dims));
            return this;
        }

        Builder node(String op, String name, List<String> inputs, List<String> outputs) {
            graph.addNode(NodeProto.newBuilder().setOpType(op).setName(name).addAllInput(inputs)
                    .addAllOutput(outputs));
            return this;
        }

        /** Adds a float initializer; its raw_data holds {@code data}, whatever the dims say. */
        Builder floats(String name, long[] dims, float... data) {
            ByteBuffer b = ByteBuffer.allocate(data.length * 4).order(ByteOrder.LITTLE_ENDIAN);
            for (float f : data) {
                b.putFloat(f);
            }
            return rawInitializer(name, dims, b.array());
        }

        Builder rawInitializer(String name, long[] dims, byte[] raw) {
            graph.addInitializer(TensorProto.newBuilder().setName(name).setDataType(FLOAT)
                    .addAllDims(Arrays.stream(dims).boxed().toList()).setRawData(ByteString.copyFrom(raw)));
            return this;
        }

        Builder ir(long version) {
            irVersion = version;
            return this;
        }

        Builder opset(long version) {
            opset = version;
            return this;
        }

        ModelProto model() {
            return ModelProto.newBuilder().setIrVersion(irVersion).setProducerName("ortex-shell-tests")
                    .addOpsetImport(OperatorSetIdProto.newBuilder().setVersion(opset)).setGraph(graph).build();
        }

        byte[] bytes() {
            return model().toByteArray();
        }

        Path write(Path file) throws IOException {
            Files.createDirectories(file.toAbsolutePath().getParent());
            Files.write(file, bytes());
            return file;
        }
    }

    static Builder builder() {
        return new Builder();
    }

    /** {@code out = Relu((x + b) * y)}, x and y float[2,3], b = [1, -2, 0.5]. */
    static Builder addMulRelu() {
        return builder()
                .input("x", 2, 3)
                .input("y", 2, 3)
                .floats("b", new long[] {3}, 1f, -2f, 0.5f)
                .node("Add", "add", List.of("x", "b"), List.of("s"))
                .node("Mul", "mul", List.of("s", "y"), List.of("p"))
                .node("Relu", "relu", List.of("p"), List.of("out"))
                .output("out", 2, 3);
    }

    /** {@code out = x + x} with x float[N, 4]. */
    static Builder symbolic() {
        return builder()
                .input("x", -1, 4)
                .node("Add", "twice", List.of("x", "x"), List.of("out"))
                .output("out", -1, 4);
    }

    static ValueInfoProto valueInfo(String name, long... dims) {
        TensorShapeProto.Builder shape = TensorShapeProto.newBuilder();
        for (long d : dims) {
            shape.addDim(d < 0 ? TensorShapeProto.Dimension.newBuilder().setDimParam("N")
                    : TensorShapeProto.Dimension.newBuilder().setDimValue(d));
        }
        return ValueInfoProto.newBuilder().setName(name).setType(TypeProto.newBuilder()
                .setTensorType(TypeProto.Tensor.newBuilder().setElemType(FLOAT).setShape(shape))).build();
    }
}
