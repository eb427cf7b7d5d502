package io.ortex.ep.ort;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.google.protobuf.ByteString;
import io.ortex.api.Tensor;
import io.ortex.onnx.proto.Onnx.AttributeProto;
import io.ortex.onnx.proto.Onnx.GraphProto;
import io.ortex.onnx.proto.Onnx.ModelProto;
import io.ortex.onnx.proto.Onnx.NodeProto;
import io.ortex.onnx.proto.Onnx.OperatorSetIdProto;
import io.ortex.onnx.proto.Onnx.TensorProto;
import io.ortex.onnx.proto.Onnx.TensorShapeProto;
import io.ortex.onnx.proto.Onnx.TypeProto;
import io.ortex.onnx.proto.Onnx.ValueInfoProto;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;

/** Builds the tests' small models with the ONNX protobuf classes, and finds the real ones. */
final class Models {
    static final int FLOAT = TensorProto.DataType.FLOAT_VALUE;
    static final int INT8 = TensorProto.DataType.INT8_VALUE;
    static final int INT64 = TensorProto.DataType.INT64_VALUE;

    private Models() {
    }

    static ValueInfoProto value(String name, int type, long... dims) {
        TensorShapeProto.Builder shape = TensorShapeProto.newBuilder();
        for (long d : dims) {
            shape.addDim(d < 0 ? TensorShapeProto.Dimension.newBuilder().setDimParam("N")
                    : TensorShapeProto.Dimension.newBuilder().setDimValue(d));
        }
        return ValueInfoProto.newBuilder().setName(name).setType(TypeProto.newBuilder()
                .setTensorType(TypeProto.Tensor.newBuilder().setElemType(type).setShape(shape))).build();
    }

    static NodeProto node(String name, String op, String inputs, String outputs, AttributeProto... attributes) {
        return NodeProto.newBuilder().setName(name).setOpType(op).addAllInput(split(inputs))
                .addAllOutput(split(outputs)).addAllAttribute(Arrays.asList(attributes)).build();
    }

    private static List<String> split(String names) {
        return names.isEmpty() ? List.of() : Arrays.asList(names.split(",", -1));
    }

    static AttributeProto intAttr(String name, long v) {
        return AttributeProto.newBuilder().setName(name).setType(AttributeProto.AttributeType.INT).setI(v).build();
    }

    static TensorProto floats(String name, float[] values, long... dims) {
        ByteBuffer b = ByteBuffer.allocate(values.length * 4).order(ByteOrder.LITTLE_ENDIAN);
        b.asFloatBuffer().put(values);
        TensorProto.Builder t = TensorProto.newBuilder().setName(name).setDataType(FLOAT)
                .setRawData(ByteString.copyFrom(b.array()));
        for (long d : dims) {
            t.addDims(d);
        }
        return t.build();
    }

    static byte[] model(GraphProto graph, int opset) {
        return ModelProto.newBuilder().setIrVersion(8).setProducerName("ortex-tests")
                .addOpsetImport(OperatorSetIdProto.newBuilder().setDomain("").setVersion(opset))
                .setGraph(graph).build().toByteArray();
    }

    /**
     * {@code out = Relu(x W + b)}, a float layer of 4 inputs and 3 outputs; nodes {@code mm}, {@code add},
     * {@code relu}.
     */
    static byte[] layer() {
        return model(GraphProto.newBuilder().setName("layer")
                .addInput(value("x", FLOAT, -1, 4))
                .addOutput(value("out", FLOAT, -1, 3))
                .addInitializer(floats("W", randomFloats(12, 3), 4, 3))
                .addInitializer(floats("b", new float[] {0.1f, -0.2f, 0.3f}, 3))
                .addNode(node("mm", "MatMul", "x,W", "h"))
                .addNode(node("add", "Add", "h,b", "z"))
                .addNode(node("relu", "Relu", "z", "out"))
                .build(), 17);
    }

    /**
     * {@code out = Softmax(Relu(x W + b))}: the example EP's ops and one it lacks; nodes {@code mm}, {@code add},
     * {@code relu}, {@code softmax}.
     */
    static byte[] layerSoftmax() {
        return model(GraphProto.newBuilder().setName("layer-softmax")
                .addInput(value("x", FLOAT, -1, 4))
                .addOutput(value("out", FLOAT, -1, 3))
                .addInitializer(floats("W", randomFloats(12, 3), 4, 3))
                .addInitializer(floats("b", new float[] {0.1f, -0.2f, 0.3f}, 3))
                .addNode(node("mm", "MatMul", "x,W", "h"))
                .addNode(node("add", "Add", "h,b", "z"))
                .addNode(node("relu", "Relu", "z", "r"))
                .addNode(node("softmax", "Softmax", "r", "out"))
                .build(), 17);
    }

    /**
     * A chain with a node ONNX Runtime has no kernel for ({@code Where} on int8) in the middle:
     * {@code out = Relu(Cast(Where(x > y, int8(x), int8(y))))}; nodes {@code gt}, {@code cx}, {@code cy},
     * {@code where}, {@code back}, {@code relu}.
     */
    static byte[] int8Where() {
        return model(GraphProto.newBuilder().setName("int8-where")
                .addInput(value("x", FLOAT, 2, 3))
                .addInput(value("y", FLOAT, 2, 3))
                .addOutput(value("out", FLOAT, 2, 3))
                .addNode(node("gt", "Greater", "x,y", "c"))
                .addNode(node("cx", "Cast", "x", "x8", intAttr("to", INT8)))
                .addNode(node("cy", "Cast", "y", "y8", intAttr("to", INT8)))
                .addNode(node("where", "Where", "c,x8,y8", "w8"))
                .addNode(node("back", "Cast", "w8", "w", intAttr("to", FLOAT)))
                .addNode(node("relu", "Relu", "w", "out"))
                .build(), 17);
    }

    /** all-MiniLM-L6-v2 from its Maven Central jar, a test dependency. */
    static byte[] miniLm() throws IOException {
        try (InputStream in = Models.class.getClassLoader().getResourceAsStream("all-minilm-l6-v2.onnx")) {
            if (in == null) {
                throw new IllegalStateException("all-minilm-l6-v2.onnx is not on the test class path");
            }
            return in.readAllBytes();
        }
    }

    /**
     * A model of the shared cache ({@code ../shared/models/fetch.sh} fills {@code ~/.cache/ortex-models}); the test is
     * skipped, saying so, when it is missing.
     */
    static Path cached(String name) {
        Path dir = Path.of(System.getProperty("ortex.models", System.getProperty("user.home")
                + "/.cache/ortex-models"));
        Path file = dir.resolve(name).resolve("model.onnx");
        assumeTrue(Files.isRegularFile(file), file + " is missing (run ../shared/models/fetch.sh " + name
                + "); skipped");
        return file;
    }

    static float[] randomFloats(int count, long seed) {
        SplittableRandom r = new SplittableRandom(seed);
        float[] f = new float[count];
        for (int i = 0; i < f.length; i++) {
            f[i] = (float) (r.nextDouble() * 2 - 1);
        }
        return f;
    }

    static Tensor randomTensor(long seed, long... shape) {
        return Tensor.ofFloats(randomFloats(Tensor.checkedElementCount(shape), seed), shape);
    }

    /** MiniLM's inputs at sequence length 128: token ids, an all-ones mask, zero token types. */
    static java.util.Map<String, Tensor> miniLmInputs(long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        long[] ids = new long[128];
        long[] mask = new long[128];
        for (int i = 0; i < 128; i++) {
            ids[i] = i == 0 ? 101 : i == 127 ? 102 : 1000 + random.nextInt(29000);
            mask[i] = 1;
        }
        java.util.Map<String, Tensor> in = new java.util.LinkedHashMap<>();
        in.put("input_ids", Tensor.ofLongs(ids, 1, 128));
        in.put("attention_mask", Tensor.ofLongs(mask, 1, 128));
        in.put("token_type_ids", Tensor.ofLongs(new long[128], 1, 128));
        return in;
    }
}
