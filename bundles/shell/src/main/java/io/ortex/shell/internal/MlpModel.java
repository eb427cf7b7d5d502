package io.ortex.shell.internal;

import com.google.protobuf.ByteString;
import io.ortex.onnx.proto.Onnx;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.SplittableRandom;

/**
 * Builds a small multi-layer perceptron ending in Softmax ({@code MatMul, Add, Relu, MatMul, Add, Softmax}) with
 * seeded weights, as ONNX bytes: the demo's model for showing a graph split between an accelerator EP, which takes
 * the matrix work, and the CPU EP, which takes the Softmax.
 */
public final class MlpModel {
    private MlpModel() {
    }

    /**
     * Builds the model.
     *
     * @param inputs the input width
     * @param hidden the hidden width
     * @param classes the output width
     * @param seed the weights' seed
     * @return the serialized model, input {@code x} of shape {@code [N, inputs]}, output {@code probabilities}
     */
    public static byte[] build(int inputs, int hidden, int classes, long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        return build(inputs, hidden, classes, random, random);
    }

    /**
     * Builds one of a family of models that share their first layer: models built with the same {@code seed} and
     * different {@code headSeed}s have the same {@code w1} and {@code b1} and their own {@code w2} and {@code b2}, as
     * task heads on one backbone do (the case for compiling a group that shares its weights).
     *
     * @param inputs the input width
     * @param hidden the hidden width
     * @param classes the output width
     * @param seed the first layer's seed
     * @param headSeed the second layer's seed
     * @return the serialized model, as {@link #build(int, int, int, long)} describes it
     */
    public static byte[] build(int inputs, int hidden, int classes, long seed, long headSeed) {
        return build(inputs, hidden, classes, new SplittableRandom(seed), new SplittableRandom(headSeed));
    }

    private static byte[] build(int inputs, int hidden, int classes, SplittableRandom random,
                                SplittableRandom head) {
        Onnx.GraphProto.Builder g = Onnx.GraphProto.newBuilder().setName("mlp")
                .addInput(value("x", "N", inputs))
                .addOutput(value("probabilities", "N", classes))
                .addInitializer(weights("w1", random, inputs, hidden))
                .addInitializer(weights("b1", random, hidden))
                .addInitializer(weights("w2", head, hidden, classes))
                .addInitializer(weights("b2", head, classes));
        g.addNode(node("MatMul", "fc1", "x", "w1", "h1"));
        g.addNode(node("Add", "bias1", "h1", "b1", "h2"));
        g.addNode(Onnx.NodeProto.newBuilder().setOpType("Relu").setName("relu").addInput("h2").addOutput("h3"));
        g.addNode(node("MatMul", "fc2", "h3", "w2", "h4"));
        g.addNode(node("Add", "bias2", "h4", "b2", "logits"));
        g.addNode(Onnx.NodeProto.newBuilder().setOpType("Softmax").setName("softmax").addInput("logits")
                .addOutput("probabilities").addAttribute(Onnx.AttributeProto.newBuilder().setName("axis")
                        .setType(Onnx.AttributeProto.AttributeType.INT).setI(-1)));
        return Onnx.ModelProto.newBuilder().setIrVersion(9).setProducerName("ortex-demo").setGraph(g)
                .addOpsetImport(Onnx.OperatorSetIdProto.newBuilder().setVersion(17)).build().toByteArray();
    }

    private static Onnx.NodeProto node(String op, String name, String a, String b, String out) {
        return Onnx.NodeProto.newBuilder().setOpType(op).setName(name).addInput(a).addInput(b).addOutput(out).build();
    }

    private static Onnx.ValueInfoProto value(String name, String batch, int width) {
        return Onnx.ValueInfoProto.newBuilder().setName(name).setType(Onnx.TypeProto.newBuilder()
                .setTensorType(Onnx.TypeProto.Tensor.newBuilder().setElemType(1).setShape(
                        Onnx.TensorShapeProto.newBuilder()
                                .addDim(Onnx.TensorShapeProto.Dimension.newBuilder().setDimParam(batch))
                                .addDim(Onnx.TensorShapeProto.Dimension.newBuilder().setDimValue(width))))).build();
    }

    private static Onnx.TensorProto weights(String name, SplittableRandom random, long... dims) {
        int n = 1;
        for (long d : dims) {
            n *= (int) d;
        }
        ByteBuffer buf = ByteBuffer.allocate(n * 4).order(ByteOrder.LITTLE_ENDIAN);
        float scale = (float) Math.sqrt(2.0 / dims[0]);
        for (int i = 0; i < n; i++) {
            buf.putFloat((float) (random.nextGaussian() * scale));
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
