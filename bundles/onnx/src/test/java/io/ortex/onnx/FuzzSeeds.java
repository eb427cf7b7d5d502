package io.ortex.onnx;

import com.google.protobuf.ByteString;
import io.ortex.api.Tensor;
import io.ortex.onnx.proto.Onnx.AttributeProto;
import io.ortex.onnx.proto.Onnx.GraphProto;
import io.ortex.onnx.proto.Onnx.TensorProto;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Writes the seed inputs of the byte-array fuzz tests of this module into {@code src/test/resources}: small valid
 * models and tensors of several element types and encodings, from which the fuzzer mutates (the inputs of the
 * external-data target, which reads a {@code FuzzedDataProvider}, come from fuzzing runs). The files are committed;
 * run this again only to change the seeds:
 * {@code java -cp <test class path> io.ortex.onnx.FuzzSeeds bundles/onnx/src/test/resources}.
 */
final class FuzzSeeds {
    private FuzzSeeds() {
    }

    /**
     * Writes the seeds.
     *
     * @param args the module's test resources folder
     * @throws IOException when a file cannot be written
     */
    public static void main(String[] args) throws IOException {
        Path root = Path.of(args[0]).resolve("io/ortex/onnx");
        Path models = Files.createDirectories(root.resolve("ModelReaderFuzzTestInputs/readModel"));
        Files.write(models.resolve("seed-add"), TestModels.model(TestModels.addGraph()).toByteArray());
        GraphProto branch = TestModels.addGraph();
        GraphProto withIf = GraphProto.newBuilder().setName("if")
                .addInput(TestModels.value("c")).addInput(TestModels.value("x", 2)).addInput(TestModels.value("y", 2))
                .addNode(TestModels.node("choose", "If", "c", "out", TestModels.graphAttr("then_branch", branch),
                        TestModels.graphAttr("else_branch", branch)))
                .addOutput(TestModels.value("out", 2)).build();
        Files.write(models.resolve("seed-if"), TestModels.model(withIf).toByteArray());
        GraphProto withWeights = TestModels.addGraph().toBuilder()
                .addInitializer(TestModels.floats("w", new float[] {1, 2, 3, 4}, 2, 2))
                .addInitializer(TensorProto.newBuilder().setName("s").setDataType(8)
                        .addStringData(ByteString.copyFromUtf8("word")).addDims(1))
                .addNode(TestModels.node("attrs", "Identity", "x", "x2",
                        AttributeProto.newBuilder().setName("f").setType(AttributeProto.AttributeType.FLOAT)
                                .setF(1.5f).build(),
                        AttributeProto.newBuilder().setName("ints").setType(AttributeProto.AttributeType.INTS)
                                .addInts(1).addInts(-1).build(),
                        AttributeProto.newBuilder().setName("t").setType(AttributeProto.AttributeType.TENSOR)
                                .setT(TestModels.floats("t", new float[] {0.5f}, 1)).build()))
                .build();
        Files.write(models.resolve("seed-weights"), TestModels.model(withWeights).toByteArray());

        Path tensors = Files.createDirectories(root.resolve("TensorCodecFuzzTestInputs/decodeTensor"));
        Files.write(tensors.resolve("seed-float-raw"), TensorCodec.toProto(Tensor.ofFloats(new float[] {1, -2, 3.5f,
            0}, 2, 2), "f").toByteArray());
        Files.write(tensors.resolve("seed-float-typed"), TestModels.floats("g", new float[] {1, 2}, 2).toByteArray());
        Files.write(tensors.resolve("seed-int64"), TensorCodec.toProto(Tensor.ofLongs(new long[] {7, -1, 0}, 3), "l")
                .toByteArray());
        Files.write(tensors.resolve("seed-bool"), TensorCodec.toProto(Tensor.ofBooleans(new boolean[] {true, false},
            2), "b").toByteArray());
        Files.write(tensors.resolve("seed-string"), TensorCodec.toProto(Tensor.ofStrings(new String[] {"a", "bc"}, 2),
                "s").toByteArray());
        Files.write(tensors.resolve("seed-int4"), TensorProto.newBuilder().setName("q").setDataType(22).addDims(3)
                .setRawData(ByteString.copyFrom(new byte[] {0x21, 0x03})).build().toByteArray());
        Files.write(tensors.resolve("seed-fp16-scalar"), TensorProto.newBuilder().setName("h").setDataType(10)
                .addInt32Data(0x3c00).build().toByteArray());
    }
}
