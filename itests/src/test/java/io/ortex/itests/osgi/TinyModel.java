package io.ortex.itests.osgi;

import com.google.protobuf.ByteString;
import io.ortex.onnx.proto.Onnx;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * A tiny ONNX model built with the protobuf classes, {@code y = Relu(x · W + b)} with {@code x} of shape
 * {@code [1, 4]}: every node is one the example EP claims, so it runs wholly on the example EP's virtual NPU or on the
 * CPU EP; {@link #reference} computes the expected output in Java.
 */
final class TinyModel {
    /** The input's name. */
    static final String INPUT = "x";
    /** The output's name. */
    static final String OUTPUT = "y";
    /** The width of input and output. */
    static final int WIDTH = 4;

    private static final float[] W = {
        0.5f, -1f, 0.25f, 2f,
        1f, 0.5f, -0.5f, 0f,
        -0.25f, 1f, 1f, -1f,
        0f, 0.75f, -1f, 0.5f
    };
    private static final float[] B = {0.1f, -0.2f, 0.3f, 0f};

    private TinyModel() {
    }

    /**
     * The model, built once while the class initializes: the protobuf classes come to the probe through a dynamic
     * import, and the framework may fail one of several threads that resolve the same dynamic import at once.
     */
    private static final byte[] BYTES = build();

    /** The serialized model (a copy). */
    static byte[] bytes() {
        return BYTES.clone();
    }

    private static byte[] build() {
        Onnx.GraphProto.Builder g = Onnx.GraphProto.newBuilder().setName("tiny")
                .addInput(value(INPUT)).addOutput(value(OUTPUT))
                .addInitializer(tensor("W", W, WIDTH, WIDTH)).addInitializer(tensor("B", B, WIDTH))
                .addNode(node("MatMul", "mm", "x", "W", "xw"))
                .addNode(node("Add", "bias", "xw", "B", "z"))
                .addNode(Onnx.NodeProto.newBuilder().setOpType("Relu").setName("relu").addInput("z").addOutput("y"));
        return Onnx.ModelProto.newBuilder().setIrVersion(9).setProducerName("ortex-itests").setGraph(g)
                .addOpsetImport(Onnx.OperatorSetIdProto.newBuilder().setVersion(17)).build().toByteArray();
    }

    /** A seeded input. */
    static float[] input(int seed) {
        float[] x = new float[WIDTH];
        for (int i = 0; i < WIDTH; i++) {
            x[i] = ((seed * 31 + i * 7) % 11 - 5) / 4f;
        }
        return x;
    }

    /** The expected output for an input. */
    static float[] reference(float[] x) {
        float[] y = new float[WIDTH];
        for (int j = 0; j < WIDTH; j++) {
            float s = B[j];
            for (int i = 0; i < WIDTH; i++) {
                s += x[i] * W[i * WIDTH + j];
            }
            y[j] = Math.max(0f, s);
        }
        return y;
    }

    private static Onnx.NodeProto node(String op, String name, String a, String b, String out) {
        return Onnx.NodeProto.newBuilder().setOpType(op).setName(name).addInput(a).addInput(b).addOutput(out).build();
    }

    private static Onnx.ValueInfoProto value(String name) {
        return Onnx.ValueInfoProto.newBuilder().setName(name).setType(Onnx.TypeProto.newBuilder()
                .setTensorType(Onnx.TypeProto.Tensor.newBuilder().setElemType(1).setShape(
                        Onnx.TensorShapeProto.newBuilder()
                                .addDim(Onnx.TensorShapeProto.Dimension.newBuilder().setDimValue(1))
                                .addDim(Onnx.TensorShapeProto.Dimension.newBuilder().setDimValue(WIDTH))))).build();
    }

    private static Onnx.TensorProto tensor(String name, float[] data, long... dims) {
        ByteBuffer buf = ByteBuffer.allocate(data.length * 4).order(ByteOrder.LITTLE_ENDIAN);
        for (float f : data) {
            buf.putFloat(f);
        }
        buf.flip();
        Onnx.TensorProto.Builder t = Onnx.TensorProto.newBuilder().setName(name).setDataType(1)
                .setRawData(ByteString.copyFrom(buf));
        for (long d : dims) {
            t.addDims(d);
        }
        return t.build();
    }
}
