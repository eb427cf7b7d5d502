package io.ortex.ep.example;

import io.ortex.api.Environment;
import io.ortex.api.spi.EpContextNode;
import io.ortex.onnx.proto.Onnx.AttributeProto;
import io.ortex.onnx.proto.Onnx.ModelProto;
import io.ortex.onnx.proto.Onnx.NodeProto;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/**
 * Writes the seed inputs of {@link ProgramCodecFuzzTest} into {@code src/test/resources}: the compiled programs of
 * real models, taken from the EPContext nodes the compile API writes. The files are committed; run this again only to
 * change the seeds:
 * {@code java -cp <test class path> io.ortex.ep.example.FuzzSeeds ep-bundles/example/src/test/resources}.
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
        Path folder = Files.createDirectories(Path.of(args[0])
                .resolve("io/ortex/ep/example/ProgramCodecFuzzTestInputs/readProgram"));
        int[][] shapes = {{4, 8, 3}, {8, 16, 4}, {2, 3, 2}};
        try (Environment env = Environment.create(Map.of(Environment.ALLOW_VIRTUAL_DEVICES, "1"))) {
            for (int[] s : shapes) {
                byte[] compiled = env.modelCompiler(EpContextTest.npu()).inputModel(EpContextTest.mlp(s[0], s[1],
                        s[2])).embedMode(true).compileToBytes();
                int i = 0;
                for (NodeProto n : ModelProto.parseFrom(compiled).getGraph().getNodeList()) {
                    for (AttributeProto a : n.getAttributeList()) {
                        if (a.getName().equals(EpContextNode.EP_CACHE_CONTEXT)) {
                            Files.write(folder.resolve("seed-mlp-" + s[0] + "x" + s[1] + "x" + s[2] + "-" + i++),
                                    a.getS().toByteArray());
                        }
                    }
                }
            }
        }
    }
}
