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

    /**
     * A model computing the int32 product {@code Y = (X - 128) x W} for a uint8 X of {@code m x k} and a constant
     * int8 W of {@code k x n} (symmetric, no zero point), one MatMulInteger node as quantization tools write it.
     *
     * @param m rows of X
     * @param k columns of X, rows of W
     * @param n columns of W
     * @param seed the seed of W's values
     * @return the serialized model
     */
    static byte[] matMulInteger(int m, int k, int n, long seed) {
        GraphProto graph = GraphProto.newBuilder().setName("matmulinteger")
                .addInput(info("X", TensorProto.DataType.UINT8_VALUE, m, k))
                .addOutput(info("Y", TensorProto.DataType.INT32_VALUE, m, n))
                .addInitializer(byteTensor("W", TensorProto.DataType.INT8_VALUE, randomBytes(k * n, seed), k, n))
                .addInitializer(byteTensor("X_zero_point", TensorProto.DataType.UINT8_VALUE, new byte[] {(byte) 128}))
                .addNode(NodeProto.newBuilder().setOpType("MatMulInteger").setName("matmulinteger").addInput("X")
                        .addInput("W").addInput("X_zero_point").addOutput("Y"))
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

    /**
     * A chain of {@code count} Relu nodes over a float32 {@code x[1, 4]}: what a run costs beyond the arithmetic
     * (one node: the fixed cost of a run; many: the cost of each node's dispatch).
     */
    static byte[] reluChain(int count) {
        GraphProto.Builder graph = GraphProto.newBuilder().setName("chain")
                .addInput(floatInfo("x", 1, 4)).addOutput(floatInfo("y", 1, 4));
        for (int i = 0; i < count; i++) {
            graph.addNode(node("Relu", "relu" + i, i == count - 1 ? "y" : "v" + i, i == 0 ? "x" : "v" + (i - 1)));
        }
        return model(graph.build(), 17);
    }

    /**
     * A model computing one Conv layer {@code Y = Conv(X, W, B)} over a float32 X of {@code 1 x c x h x w}, with
     * constant weights and bias, padded to keep the size at stride 1.
     *
     * @param c input channels
     * @param m output channels
     * @param h input height
     * @param w input width
     * @param k kernel size (square)
     * @param stride the stride along both axes
     * @param group the group count
     * @param seed the seed of the weights
     * @return the serialized model
     */
    static byte[] conv(int c, int m, int h, int w, int k, int stride, int group, long seed) {
        int pad = k / 2;
        long oh = (h + 2L * pad - k) / stride + 1;
        long ow = (w + 2L * pad - k) / stride + 1;
        NodeProto.Builder node = NodeProto.newBuilder().setOpType("Conv").setName("conv").addInput("X").addInput("W")
                .addInput("B").addOutput("Y")
                .addAttribute(intsAttr("kernel_shape", k, k))
                .addAttribute(intsAttr("strides", stride, stride))
                .addAttribute(intsAttr("pads", pad, pad, pad, pad))
                .addAttribute(intAttr("group", group));
        GraphProto graph = GraphProto.newBuilder().setName("conv")
                .addInput(floatInfo("X", 1, c, h, w))
                .addOutput(floatInfo("Y", 1, m, oh, ow))
                .addInitializer(floatTensor("W", randomFloats(m * (c / group) * k * k, seed), m, c / group, k, k))
                .addInitializer(floatTensor("B", randomFloats(m, seed + 1), m))
                .addNode(node)
                .build();
        return model(graph);
    }

    /**
     * {@code QLinearConv} of a uint8 input {@code X[1, c, h, w]} (zero point 128) by constant int8 weights (zero point
     * 0, one scale per output channel) and an int32 bias, to uint8, with the padding {@code k / 2} on every side.
     *
     * @param c input channels
     * @param m output channels
     * @param h input height
     * @param w input width
     * @param k kernel size (square)
     * @param stride the stride along both axes
     * @param group the group count
     * @param seed the seed of the weights
     * @return the serialized model
     */
    static byte[] qlinearConv(int c, int m, int h, int w, int k, int stride, int group, long seed) {
        int pad = k / 2;
        long oh = (h + 2L * pad - k) / stride + 1;
        long ow = (w + 2L * pad - k) / stride + 1;
        NodeProto.Builder node = NodeProto.newBuilder().setOpType("QLinearConv").setName("qlinearconv")
                .addInput("X").addInput("x_scale").addInput("x_zero_point").addInput("W").addInput("w_scale")
                .addInput("w_zero_point").addInput("y_scale").addInput("y_zero_point").addInput("B").addOutput("Y")
                .addAttribute(intsAttr("kernel_shape", k, k))
                .addAttribute(intsAttr("strides", stride, stride))
                .addAttribute(intsAttr("pads", pad, pad, pad, pad))
                .addAttribute(intAttr("group", group));
        float[] wScale = new float[m];
        java.util.Arrays.fill(wScale, 0.002f);
        java.util.SplittableRandom r = new java.util.SplittableRandom(seed);
        ByteBuffer biasBytes = ByteBuffer.allocate(4 * m).order(ByteOrder.LITTLE_ENDIAN);
        for (int i = 0; i < m; i++) {
            biasBytes.putInt(r.nextInt(2001) - 1000);
        }
        GraphProto graph = GraphProto.newBuilder().setName("qlinearconv")
                .addInput(info("X", TensorProto.DataType.UINT8_VALUE, 1, c, h, w))
                .addOutput(info("Y", TensorProto.DataType.UINT8_VALUE, 1, m, oh, ow))
                .addInitializer(floatTensor("x_scale", new float[] {0.02f}))
                .addInitializer(byteTensor("x_zero_point", TensorProto.DataType.UINT8_VALUE, new byte[] {(byte) 128}))
                .addInitializer(byteTensor("W", TensorProto.DataType.INT8_VALUE,
                        randomBytes(m * (c / group) * k * k, seed), m, c / group, k, k))
                .addInitializer(floatTensor("w_scale", wScale, m))
                .addInitializer(byteTensor("w_zero_point", TensorProto.DataType.INT8_VALUE, new byte[m], m))
                .addInitializer(floatTensor("y_scale", new float[] {0.05f}))
                .addInitializer(byteTensor("y_zero_point", TensorProto.DataType.UINT8_VALUE, new byte[] {(byte) 128}))
                .addInitializer(byteTensor("B", TensorProto.DataType.INT32_VALUE, biasBytes.array(), m))
                .addNode(node)
                .build();
        return model(graph);
    }

    private static io.ortex.onnx.proto.Onnx.AttributeProto intsAttr(String name, long... values) {
        io.ortex.onnx.proto.Onnx.AttributeProto.Builder a = io.ortex.onnx.proto.Onnx.AttributeProto.newBuilder()
                .setName(name).setType(io.ortex.onnx.proto.Onnx.AttributeProto.AttributeType.INTS);
        for (long v : values) {
            a.addInts(v);
        }
        return a.build();
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
        return info(name, TensorProto.DataType.FLOAT_VALUE, dims);
    }

    private static ValueInfoProto info(String name, int elementType, long... dims) {
        TensorShapeProto.Builder shape = TensorShapeProto.newBuilder();
        for (long d : dims) {
            shape.addDim(TensorShapeProto.Dimension.newBuilder().setDimValue(d));
        }
        return ValueInfoProto.newBuilder().setName(name).setType(TypeProto.newBuilder().setTensorType(
                TypeProto.Tensor.newBuilder().setElemType(elementType).setShape(shape))).build();
    }

    private static TensorProto byteTensor(String name, int elementType, byte[] data, long... dims) {
        TensorProto.Builder t = TensorProto.newBuilder().setName(name).setDataType(elementType)
                .setRawData(ByteString.copyFrom(data));
        for (long d : dims) {
            t.addDims(d);
        }
        return t.build();
    }

    /**
     * Uniform bytes over all 256 values.
     *
     * @param count how many
     * @param seed the seed
     * @return the values
     */
    static byte[] randomBytes(int count, long seed) {
        byte[] b = new byte[count];
        new SplittableRandom(seed).nextBytes(b);
        return b;
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
