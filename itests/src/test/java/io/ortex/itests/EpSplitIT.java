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
import java.util.List;
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
    private static final Pattern COPY = Pattern.compile("\"value\" : \"([^\"]+)\",\\s*\"from\" : \"([^\"]+)\","
            + "\\s*\"to\" : \"([^\"]+)\",\\s*\"when\" : \"([^\"]+)\"");
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

    /**
     * With the example EP in its own (off-heap) memory, {@code x} is copied in and only the Softmax's input comes
     * back to host memory for the ONNX Runtime EP; {@code ortex run --json} lists those copies, and the outputs are
     * the CPU EP's.
     */
    @Test
    void theExampleEpsDeviceMemoryIsCopiedOnlyWhereTheOrtEpReads(@TempDir Path dir) throws Exception {
        for (boolean modulePath : new boolean[] {false, true}) {
            Path model = dir.resolve("mlp.onnx");
            Files.write(model, MlpModel.build(32, 64, 10, 1));
            Path out = dir.resolve("device-" + modulePath);
            DistributionIT.Result r = DistributionIT.ortex(modulePath, "run", model.toString(), "--shape", "x=3x32",
                    "--json", "--register", "example.virtual=" + exampleJar(), "--policy", "PREFER_NPU", "--config",
                    "ep.exampleexecutionprovider.memory=device", "--output-dir", out.toString());
            assertEquals(0, r.exit(), r.err());
            Matcher copies = COPY.matcher(r.out());
            List<String> seen = new java.util.ArrayList<>();
            while (copies.find()) {
                seen.add(copies.group(2) + "->" + copies.group(3) + ":" + copies.group(4));
            }
            assertEquals(List.of("Cpu->ExampleNpu:run", "ExampleNpu->Cpu:run"), seen, r.out());
            DistributionIT.Result cpu = DistributionIT.ortex(modulePath, "run", model.toString(), "--shape",
                    "x=3x32", "--output-dir", dir.resolve("cpu-" + modulePath).toString());
            assertEquals(0, cpu.exit(), cpu.err());
            assertNull(TensorComparison.difference(read(dir.resolve("cpu-" + modulePath + "/output_0.pb")),
                    read(out.resolve("output_0.pb")), 1e-5, 1e-6));
        }
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
