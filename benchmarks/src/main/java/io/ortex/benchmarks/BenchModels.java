package io.ortex.benchmarks;

import com.google.protobuf.ByteString;
import io.ortex.onnx.proto.Onnx.GraphProto;
import io.ortex.onnx.proto.Onnx.ModelProto;
import io.ortex.onnx.proto.Onnx.NodeProto;
import io.ortex.onnx.proto.Onnx.OperatorSetIdProto;
import io.ortex.onnx.proto.Onnx.TensorProto;
import io.ortex.onnx.proto.Onnx.TensorShapeProto;
import io.ortex.onnx.proto.Onnx.TypeProto;
import io.ortex.onnx.proto.Onnx.ValueInfoProto;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.SplittableRandom;

/** Builds the small synthetic models that the kernel benchmarks run, with the ONNX protobuf classes. */
final class BenchModels {
    private BenchModels() {
    }

    /**
     * A model computing {@code Y = X x W} for a float32 X of {@code m x k} and a constant W of {@code k x n}.
     *
     * @param m rows of X
     * @param k columns of X, rows of W
     * @param n columns of W
     * @param seed the seed of W's values
     * @return the serialized model
     */
    static byte[] matMul(int m, int k, int n, long seed) {
        GraphProto graph = GraphProto.newBuilder().setName("matmul")
                .addInput(floatInfo("X", m, k))
                .addOutput(floatInfo("Y", m, n))
                .addInitializer(floatTensor("W", randomFloats(k * n, seed), k, n))
                .addNode(NodeProto.newBuilder().setOpType("MatMul").setName("matmul").addInput("X").addInput("W")
                        .addOutput("Y"))
                .build();
        return model(graph);
    }

    /** {@code Softmax(x, axis=-1)} over float32 {@code x[shape]}, opset 13. */
    static byte[] softmax(long... shape) {
        GraphProto graph = GraphProto.newBuilder().setName("softmax")
                .addInput(floatInfo("x", shape)).addOutput(floatInfo("y", shape))
                .addNode(NodeProto.newBuilder().setOpType("Softmax").setName("softmax").addInput("x").addOutput("y")
                        .addAttribute(intAttr("axis", -1)))
                .build();
        return model(graph, 17);
    }

    /** {@code LayerNormalization(x, scale, bias)} over the last axis of float32 {@code x[rows, cols]}, opset 17. */
    static byte[] layerNorm(int rows, int cols) {
        GraphProto graph = GraphProto.newBuilder().setName("layernorm")
                .addInput(floatInfo("x", 1, rows, cols)).addOutput(floatInfo("y", 1, rows, cols))
                .addInitializer(floatTensor("scale", randomFloats(cols, 3), cols))
                .addInitializer(floatTensor("bias", randomFloats(cols, 4), cols))
                .addNode(NodeProto.newBuilder().setOpType("LayerNormalization").setName("ln").addInput("x")
                        .addInput("scale").addInput("bias").addOutput("y").addAttribute(intAttr("axis", -1)))
                .build();
        return model(graph, 17);
    }

    /**
     * Scaled masked attention as exporters write it: {@code MatMul(Softmax(MatMul(q, kt) / sqrt(d) + mask), v)} with
     * {@code q[1, heads, seq, d]}, {@code kt[1, heads, d, seq]}, {@code v[1, heads, seq, d]}, {@code mask[1,1,1,seq]}.
     */
    static byte[] attention(int heads, int seq, int d) {
        GraphProto graph = GraphProto.newBuilder().setName("attention")
                .addInput(floatInfo("q", 1, heads, seq, d)).addInput(floatInfo("kt", 1, heads, d, seq))
                .addInput(floatInfo("v", 1, heads, seq, d)).addInput(floatInfo("mask", 1, 1, 1, seq))
                .addOutput(floatInfo("y", 1, heads, seq, d))
                .addInitializer(floatTensor("c", new float[] {(float) Math.sqrt(d)}))
                .addNode(node("MatMul", "qk", "s", "q", "kt"))
                .addNode(node("Div", "scale", "s2", "s", "c"))
                .addNode(node("Add", "mask", "s3", "s2", "mask"))
                .addNode(node("Softmax", "softmax", "p", "s3").toBuilder().addAttribute(intAttr("axis", -1)))
                .addNode(node("MatMul", "pv", "y", "p", "v"))
                .build();
        return model(graph, 17);
    }

    private static NodeProto node(String op, String name, String out, String... in) {
        NodeProto.Builder b = NodeProto.newBuilder().setOpType(op).setName(name).addOutput(out);
        for (String i : in) {
            b.addInput(i);
        }
        return b.build();
    }

    private static io.ortex.onnx.proto.Onnx.AttributeProto intAttr(String name, long v) {
        return io.ortex.onnx.proto.Onnx.AttributeProto.newBuilder().setName(name)
                .setType(io.ortex.onnx.proto.Onnx.AttributeProto.AttributeType.INT).setI(v).build();
    }

    static byte[] model(GraphProto graph, int opset) {
        return ModelProto.newBuilder().setIrVersion(8).setProducerName("ortex-benchmarks")
                .addOpsetImport(OperatorSetIdProto.newBuilder().setDomain("").setVersion(opset))
                .setGraph(graph).build().toByteArray();
    }

    static byte[] model(GraphProto graph) {
        return ModelProto.newBuilder().setIrVersion(8).setProducerName("ortex-benchmarks")
                .addOpsetImport(OperatorSetIdProto.newBuilder().setDomain("").setVersion(17))
                .setGraph(graph).build().toByteArray();
    }

    static ValueInfoProto floatInfo(String name, long... dims) {
        TensorShapeProto.Builder shape = TensorShapeProto.newBuilder();
        for (long d : dims) {
            shape.addDim(TensorShapeProto.Dimension.newBuilder().setDimValue(d));
        }
        return ValueInfoProto.newBuilder().setName(name).setType(TypeProto.newBuilder().setTensorType(
                TypeProto.Tensor.newBuilder().setElemType(TensorProto.DataType.FLOAT_VALUE).setShape(shape))).build();
    }

    static TensorProto floatTensor(String name, float[] data, long... dims) {
        ByteBuffer b = ByteBuffer.allocate(data.length * 4).order(ByteOrder.LITTLE_ENDIAN);
        b.asFloatBuffer().put(data);
        TensorProto.Builder t = TensorProto.newBuilder().setName(name).setDataType(TensorProto.DataType.FLOAT_VALUE)
                .setRawData(ByteString.copyFrom(b.array()));
        for (long d : dims) {
            t.addDims(d);
        }
        return t.build();
    }

    /**
     * Uniform floats in [-1, 1).
     *
     * @param count how many
     * @param seed the seed
     * @return the values
     */
    static float[] randomFloats(int count, long seed) {
        SplittableRandom r = new SplittableRandom(seed);
        float[] f = new float[count];
        for (int i = 0; i < count; i++) {
            f[i] = (float) (r.nextDouble() * 2 - 1);
        }
        return f;
    }
}
