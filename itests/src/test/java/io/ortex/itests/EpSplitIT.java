package io.ortex.itests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ortex.api.Tensor;
import io.ortex.onnx.TensorCodec;
import io.ortex.onnx.TensorComparison;
import io.ortex.onnx.proto.Onnx;
import io.ortex.shell.internal.MlpModel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The plugin-EP architecture as a user meets it on the command line: with the example EP registered under a
 * {@code .virtual} name (so it may offer its virtual NPU), the PREFER_NPU policy puts the MatMul/Add/Relu nodes of an
 * MLP on that NPU and the Softmax on the ONNX Runtime EP that the distribution deploys (the policies prefer it to the
 * built-in CPU EP), the split shown by {@code ortex run --json}, and the outputs equal those of a run on the built-in
 * CPU EP alone; in the distribution's framework and on the JPMS module path alike.
 */
class EpSplitIT {
    private static final Pattern ASSIGNMENT = Pattern.compile(
            "\"node\" : \"([^\"]+)\",\\s*\"op\" : \"([^\"]+)\",\\s*\"ep\" : \"([^\"]+)\"");

    @Test
    void preferNpuSplitsTheMlpBetweenTheExampleEpAndTheOrtEp(@TempDir Path dir) throws Exception {
        splits(dir, false);
    }

    @Test
    void preferNpuSplitsTheMlpOnTheModulePath(@TempDir Path dir) throws Exception {
        splits(dir, true);
    }

    /** The example EP's jar in the distribution's examples/ folder. */
    static Path exampleJar() throws java.io.IOException {
        try (var jars = Files.list(Path.of(System.getProperty("ortex.dist", "../assembly/target/ortex"), "examples"))) {
            return jars.filter(p -> p.getFileName().toString().startsWith("io.ortex.ep.example")).findFirst()
                    .orElseThrow(() -> new AssertionError("no example EP jar in examples/"));
        }
    }

    private static void splits(Path dir, boolean modulePath) throws Exception {
        Path model = dir.resolve("mlp.onnx");
        Files.write(model, MlpModel.build(32, 64, 10, 1));
        DistributionIT.Result split = DistributionIT.ortex(modulePath, "run", model.toString(), "--shape", "x=3x32",
                "--json", "--register", "example.virtual=" + exampleJar(), "--policy", "PREFER_NPU", "--output-dir",
                dir.resolve("split").toString());
        assertEquals(0, split.exit(), split.err());
        Map<String, String> epOf = new LinkedHashMap<>();
        Matcher m = ASSIGNMENT.matcher(split.out());
        while (m.find()) {
            epOf.put(m.group(2) + ":" + m.group(1), m.group(3));
        }
        assertEquals(6, epOf.size(), split.out());
        epOf.forEach((node, ep) -> assertEquals(node.startsWith("Softmax:") ? "OrtExecutionProvider"
                : "ExampleExecutionProvider", ep, node));
        assertTrue(split.out().contains("\"eps\" : [ \"ExampleExecutionProvider\", \"OrtExecutionProvider\", "
                + "\"CPUExecutionProvider\" ]"), split.out());

        DistributionIT.Result cpu = DistributionIT.ortex(modulePath, "run", model.toString(), "--shape", "x=3x32",
                "--output-dir", dir.resolve("cpu").toString());
        assertEquals(0, cpu.exit(), cpu.err());
        Tensor a = read(dir.resolve("split/output_0.pb"));
        Tensor b = read(dir.resolve("cpu/output_0.pb"));
        assertNull(TensorComparison.difference(b, a, 1e-5, 1e-6));
    }

    @Test
    void withoutVirtualDevicesPreferNpuFallsBackToTheCpuEps(@TempDir Path dir) throws Exception {
        Path model = dir.resolve("mlp.onnx");
        Files.write(model, MlpModel.build(8, 16, 4, 2));
        DistributionIT.Result r = DistributionIT.ortex("run", model.toString(), "--json", "--policy", "PREFER_NPU");
        assertEquals(0, r.exit(), r.err());
        assertTrue(r.out().contains("\"eps\" : [ \"OrtExecutionProvider\", \"CPUExecutionProvider\" ]"), r.out());
    }

    private static Tensor read(Path file) throws Exception {
        return TensorCodec.fromProto(Onnx.TensorProto.parseFrom(Files.readAllBytes(file)));
    }
}
