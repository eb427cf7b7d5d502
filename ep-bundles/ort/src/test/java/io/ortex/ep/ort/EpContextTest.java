package io.ortex.ep.ort;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ortex.api.CompiledModelCompatibility;
import io.ortex.api.EpDevice;
import io.ortex.api.Environment;
import io.ortex.api.NodeAssignment;
import io.ortex.api.OrtexException;
import io.ortex.api.Session;
import io.ortex.api.SessionOptions;
import io.ortex.api.Tensor;
import io.ortex.onnx.ModelReader;
import io.ortex.onnx.OnnxModel;
import io.ortex.onnx.TensorComparison;
import io.ortex.onnx.proto.Onnx.ModelProto;
import io.ortex.onnx.proto.Onnx.StringStringEntryProto;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Compiled models: a partition of the ONNX Runtime EP is saved as ONNX Runtime's optimized model (ORT format by
 * default, or ONNX) in an EPContext node, with a compatibility string naming ONNX Runtime's version and the CPU's
 * features; loading it gives the same outputs without optimizing again, and the verdicts follow the string.
 */
class EpContextTest {
    private static Environment env;

    @BeforeAll
    static void environment() {
        env = Environment.create();
    }

    @AfterAll
    static void close() {
        env.close();
    }

    private static List<EpDevice> ort() {
        return env.epDevices().stream().filter(d -> d.epName().equals(OrtEpFactory.NAME)).toList();
    }

    private static Path compile(Path dir, String format, boolean embed) throws Exception {
        Files.createDirectories(dir);
        Path source = dir.resolve("layer.onnx");
        Files.write(source, Models.layer());
        Path compiled = dir.resolve("layer_" + format + "_ctx.onnx");
        SessionOptions o = new SessionOptions().appendExecutionProvider(ort(), Map.of("ep_context_format", format))
                .config(SessionOptions.EP_CONTEXT_ENABLE, "1")
                .config(SessionOptions.EP_CONTEXT_FILE_PATH, compiled.toString())
                .config(SessionOptions.EP_CONTEXT_EMBED_MODE, embed ? "1" : "0");
        try (Session s = env.createSession(source, o)) {
            assertEquals(3, s.assignment().size());
        }
        return compiled;
    }

    @Test
    void aCompiledPartitionLoadsAndGivesTheSameOutputs(@TempDir Path dir) throws Exception {
        Map<String, Tensor> in = Map.of("x", Models.randomTensor(21, 5, 4));
        Tensor want = OrtDirect.run(Models.layer(), in, 1).get("out");
        for (String format : List.of("ort", "onnx")) {
            for (boolean embed : List.of(true, false)) {
                Path compiled = compile(dir.resolve(format + embed), format, embed);
                OnnxModel m = ModelReader.read(compiled);
                assertEquals(List.of("EPContext"), m.graph().nodes().stream().map(n -> n.opType()).toList());
                String info = m.metadata().get(SessionOptions.EP_COMPATIBILITY_INFO_PREFIX + OrtEpFactory.NAME);
                assertTrue(info.startsWith(OrtEpFactory.NAME + ";ort=" + OrtRuntime.version() + ";format=" + format),
                        info);
                try (Session s = env.createSession(compiled, new SessionOptions().appendExecutionProvider(ort(),
                        Map.of()))) {
                    NodeAssignment a = s.assignment().get(0);
                    assertEquals(OrtEpFactory.NAME, a.ep());
                    assertNull(TensorComparison.difference(want, s.run(in).get("out"), 0, 1e-6), format);
                }
            }
        }
    }

    @Test
    void theVerdictsFollowTheCompatibilityString() {
        CompatibilityInfo here = CompatibilityInfo.ofThisMachine(OrtRuntime.version(), "ort");
        String name = OrtEpFactory.NAME;
        OrtEpFactory factory = new OrtEpFactory();
        assertEquals(CompiledModelCompatibility.SUPPORTED_OPTIMAL,
                factory.validateCompiledModelCompatibility(List.of(), here.encode(name)));
        CompatibilityInfo older = new CompatibilityInfo("1.28.0", "ort", here.arch(), here.cpuFeatures());
        assertEquals(CompiledModelCompatibility.SUPPORTED_PREFER_RECOMPILATION,
                factory.validateCompiledModelCompatibility(List.of(), older.encode(name)));
        CompatibilityInfo otherCpu = new CompatibilityInfo(here.ortVersion(), "ort", here.arch(),
                here.cpuFeatures().contains("avx512f") ? Set.of("avx2") : Set.of("avx2", "avx512f", "amx_tile"));
        assertEquals(CompiledModelCompatibility.UNSUPPORTED,
                factory.validateCompiledModelCompatibility(List.of(), otherCpu.encode(name)));
        CompatibilityInfo otherArch = new CompatibilityInfo(here.ortVersion(), "ort", "riscv64", here.cpuFeatures());
        assertEquals(CompiledModelCompatibility.UNSUPPORTED,
                factory.validateCompiledModelCompatibility(List.of(), otherArch.encode(name)));
        for (String junk : List.of("", "ExampleExecutionProvider;version=0.1.0", name, name + ";ort=1.29.0",
                name + ";ort=1.29.0;format=ort;arch=amd64;cpu=avx2;x", name + ";ort=" + here.ortVersion()
                        + ";format=zip;arch=" + here.arch() + ";cpu=" + String.join(",", here.cpuFeatures()))) {
            assertEquals(CompiledModelCompatibility.UNSUPPORTED,
                    factory.validateCompiledModelCompatibility(List.of(), junk), junk);
        }
    }

    @Test
    void aModelCompiledForAnotherCpuIsRefusedAtLoad(@TempDir Path dir) throws Exception {
        Path compiled = compile(dir, "ort", true);
        ModelProto p = ModelProto.parseFrom(Files.readAllBytes(compiled));
        ModelProto.Builder b = p.toBuilder().clearMetadataProps();
        for (StringStringEntryProto e : p.getMetadataPropsList()) {
            String v = e.getKey().endsWith(OrtEpFactory.NAME) ? e.getValue().replaceAll("cpu=.*", "cpu=sve")
                    : e.getValue();
            b.addMetadataProps(e.toBuilder().setValue(v));
        }
        Path foreign = dir.resolve("foreign.onnx");
        Files.write(foreign, b.build().toByteArray());
        OrtexException e = assertThrows(OrtexException.class, () -> env.createSession(foreign,
                new SessionOptions().appendExecutionProvider(ort(), Map.of())));
        assertTrue(e.getMessage().contains(OrtEpFactory.NAME), e.getMessage());
    }
}
