package io.ortex.runtime.internal;

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
import java.util.List;

/** Builds tiny ONNX models for the runtime's tests with the protobuf classes. */
final class TestModels {
    /** ONNX's code for float32. */
    static final int FLOAT = TensorProto.DataType.FLOAT_VALUE;
    /** ONNX's code for int64. */
    static final int INT64 = TensorProto.DataType.INT64_VALUE;

    private TestModels() {
    }

    /** A model under construction: one graph, ONNX opset 17, IR version 8. */
    static final class Builder {
        private final GraphProto.Builder graph = GraphProto.newBuilder().setName("test");
        private int opset = 17;

        /** Sets the ONNX opset (17 by default). */
        Builder opset(int version) {
            this.opset = version;
            return this;
        }

        /** Declares a graph input; a negative dimension is symbolic ({@code N}). */
        Builder input(String name, int type, long... dims) {
            graph.addInput(valueInfo(name, type, dims));
            return this;
        }

        /** Declares a graph output; a negative dimension is symbolic. */
        Builder output(String name, int type, long... dims) {
            graph.addOutput(valueInfo(name, type, dims));
            return this;
        }

        /** Adds a node. */
        Builder node(String op, String name, List<String> inputs, List<String> outputs) {
            graph.addNode(NodeProto.newBuilder().setOpType(op).setName(name).addAllInput(inputs)
                    .addAllOutput(outputs));
            return this;
        }

        /** Adds a node built by the caller (with attributes, say). */
        Builder node(NodeProto.Builder node) {
            graph.addNode(node);
            return this;
        }

        /** Adds an int64 initializer. */
        Builder longs(String name, long[] data, long... dims) {
            TensorProto.Builder t = TensorProto.newBuilder().setName(name).setDataType(INT64).addAllDims(box(dims));
            for (long v : data) {
                t.addInt64Data(v);
            }
            graph.addInitializer(t);
            return this;
        }

        /** Adds a float initializer stored in raw_data. */
        Builder floats(String name, float[] data, long... dims) {
            ByteBuffer b = ByteBuffer.allocate(data.length * 4).order(ByteOrder.LITTLE_ENDIAN);
            for (float f : data) {
                b.putFloat(f);
            }
            graph.addInitializer(TensorProto.newBuilder().setName(name).setDataType(FLOAT)
                    .addAllDims(box(dims)).setRawData(ByteString.copyFrom(b.array())));
            return this;
        }

        /** Gets the model message. */
        ModelProto model() {
            return ModelProto.newBuilder().setIrVersion(8).setProducerName("ortex-tests")
                    .addOpsetImport(OperatorSetIdProto.newBuilder().setDomain("").setVersion(opset))
                    .setGraph(graph).build();
        }

        /** Gets the serialized model. */
        byte[] bytes() {
            return model().toByteArray();
        }

        /** Writes the model to {@code dir/file}. */
        Path write(Path dir, String file) throws IOException {
            Path p = dir.resolve(file);
            Files.write(p, bytes());
            return p;
        }
    }

    static Builder builder() {
        return new Builder();
    }

    /**
     * {@code out = Relu((x + b) * y)} with {@code x, y: float[2,3]} and the initializer {@code b = [1, -2, 0.5]};
     * nodes {@code add}, {@code mul}, {@code relu}.
     */
    static Builder addMulRelu() {
        return builder()
                .input("x", FLOAT, 2, 3)
                .input("y", FLOAT, 2, 3)
                .floats("b", new float[] {1f, -2f, 0.5f}, 3)
                .node("Add", "add", List.of("x", "b"), List.of("s"))
                .node("Mul", "mul", List.of("s", "y"), List.of("p"))
                .node("Relu", "relu", List.of("p"), List.of("out"))
                .output("out", FLOAT, 2, 3);
    }

    /** What {@link #addMulRelu()} computes. */
    static float[] addMulReluExpected(float[] x, float[] y) {
        float[] b = {1f, -2f, 0.5f};
        float[] out = new float[x.length];
        for (int i = 0; i < x.length; i++) {
            out[i] = Math.max(0f, (x[i] + b[i % 3]) * y[i]);
        }
        return out;
    }

    /** {@code out = x * y} with {@code x, y: float[2,3]}; node {@code mul}. */
    static Builder mul() {
        return builder()
                .input("x", FLOAT, 2, 3)
                .input("y", FLOAT, 2, 3)
                .node("Mul", "mul", List.of("x", "y"), List.of("out"))
                .output("out", FLOAT, 2, 3);
    }

    /**
     * ONNX Runtime's partially supported model: {@code out = ((x + y) * y) + x} with {@code x, y: float[2,3]}; nodes
     * {@code add_0}, {@code mul_0}, {@code add_1}.
     */
    static Builder addMulAdd() {
        return builder()
                .input("x", FLOAT, 2, 3)
                .input("y", FLOAT, 2, 3)
                .node("Add", "add_0", List.of("x", "y"), List.of("s"))
                .node("Mul", "mul_0", List.of("s", "y"), List.of("p"))
                .node("Add", "add_1", List.of("p", "x"), List.of("out"))
                .output("out", FLOAT, 2, 3);
    }

    /** What {@link #addMulAdd()} computes. */
    static float[] addMulAddExpected(float[] x, float[] y) {
        float[] out = new float[x.length];
        for (int i = 0; i < x.length; i++) {
            out[i] = (x[i] + y[i]) * y[i] + x[i];
        }
        return out;
    }

    static ValueInfoProto valueInfo(String name, int type, long... dims) {
        TensorShapeProto.Builder shape = TensorShapeProto.newBuilder();
        for (long d : dims) {
            shape.addDim(d < 0 ? TensorShapeProto.Dimension.newBuilder().setDimParam("N")
                    : TensorShapeProto.Dimension.newBuilder().setDimValue(d));
        }
        return ValueInfoProto.newBuilder().setName(name).setType(TypeProto.newBuilder()
                .setTensorType(TypeProto.Tensor.newBuilder().setElemType(type).setShape(shape))).build();
    }

    private static List<Long> box(long[] dims) {
        return java.util.Arrays.stream(dims).boxed().toList();
    }
}
