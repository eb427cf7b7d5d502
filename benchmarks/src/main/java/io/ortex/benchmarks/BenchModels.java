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
