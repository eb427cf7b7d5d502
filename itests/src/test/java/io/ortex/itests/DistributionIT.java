package io.ortex.itests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ortex.onnx.proto.Onnx;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Runs {@code assembly/target/ortex/bin/ortex} in its own process, as a user meets it: by default each verb runs in
 * the distribution's OSGi framework (the launcher starts Felix, calls the shell bundle's command-line service, stops);
 * with {@code ORTEX_MODULE_PATH=1} the same jars run on the JPMS module path, which checks the module descriptors and
 * the service bindings (runtime and CPU EP found through {@code provides}/{@code uses}). The command-line contract is
 * checked in both.
 */
class DistributionIT {
    private static final Path DIST = Path.of(System.getProperty("ortex.dist", "../assembly/target/ortex"));

    record Result(int exit, String out, String err) {
    }

    static Result ortex(String... args) throws IOException, InterruptedException {
        return ortex(false, args);
    }

    static Result ortexOnModulePath(String... args) throws IOException, InterruptedException {
        return ortex(true, args);
    }

    static Result ortex(boolean modulePath, String... args) throws IOException, InterruptedException {
        return ortex(Map.of(), modulePath, args);
    }

    static Result ortex(Map<String, String> env, boolean modulePath, String... args)
            throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>();
        cmd.add(DIST.resolve("bin/ortex").toString());
        cmd.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(cmd);
        pb.environment().put("JAVA_HOME", System.getProperty("java.home"));
        if (modulePath) {
            pb.environment().put("ORTEX_MODULE_PATH", "1");
        } else {
            pb.environment().remove("ORTEX_MODULE_PATH");
        }
        pb.environment().putAll(env);
        Process p = pb.start();
        p.getOutputStream().close();
        byte[] out = p.getInputStream().readAllBytes();
        byte[] err = p.getErrorStream().readAllBytes();
        assertTrue(p.waitFor(120, TimeUnit.SECONDS), "ortex did not finish");
        return new Result(p.exitValue(), new String(out, StandardCharsets.UTF_8),
                new String(err, StandardCharsets.UTF_8));
    }

    @Test
    void listsTheCpuAndTheCpuEpInTheFramework() throws Exception {
        listsTheCpuAndTheCpuEp(false);
    }

    @Test
    void listsTheCpuAndTheCpuEpOnTheModulePath() throws Exception {
        listsTheCpuAndTheCpuEp(true);
    }

    private static void listsTheCpuAndTheCpuEp(boolean modulePath) throws Exception {
        Result devices = ortex(modulePath, "devices");
        assertEquals(0, devices.exit(), devices.err());
        assertEquals("", devices.err(), "the JVM's incubator notice is filtered from a piped stderr");
        assertTrue(devices.out().contains("CPU"), devices.out());
        assertTrue(devices.out().contains("JVM      ") && devices.out().contains(System.getProperty("java.home")),
                devices.out());
        assertTrue(devices.out().contains("CPU EP   Vector API, "), "the launcher adds jdk.incubator.vector, "
                + "and the CPU EP uses it: " + devices.out());
        Result eps = ortex(modulePath, "eps", "--json");
        assertEquals(0, eps.exit(), eps.err());
        assertTrue(eps.out().contains("\"ep\" : \"CPUExecutionProvider\""), eps.out());
        assertTrue(eps.out().contains("\"version\" : \"0.1.0\""), eps.out());
        assertTrue(eps.out().contains("\"state\" : \"ACTIVE\""), eps.out());
        assertTrue(!eps.out().contains("ExampleExecutionProvider"), "the example EP is not installed by default");
        assertTrue(eps.out().contains("\"ep\" : \"OrtExecutionProvider\""), "the ONNX Runtime EP is: " + eps.out());
    }

    @Test
    void ortexVectorZeroRunsThePlainJavaKernels() throws Exception {
        Result devices = ortex(Map.of("ORTEX_VECTOR", "0"), false, "devices");
        assertEquals(0, devices.exit(), devices.err());
        assertTrue(devices.out().contains("CPU EP   plain Java: module jdk.incubator.vector not present"),
                devices.out());
    }

    @Test
    void runsAModelOnTheModulePath(@TempDir Path dir) throws Exception {
        Path model = dir.resolve("add.onnx");
        Files.write(model, addModel().toByteArray());
        Result r = ortexOnModulePath("run", model.toString(), "--json");
        assertEquals(0, r.exit(), r.err());
        assertTrue(r.out().contains("\"ep\" : \"CPUExecutionProvider\""), r.out());
    }

    @Test
    void usageErrorsAreOneLineWithExitTwoInTheFramework() throws Exception {
        Result r = ortex("frobnicate");
        assertEquals(2, r.exit(), r.out() + r.err());
        assertEquals("ortex: unknown verb 'frobnicate'; try: ortex help", r.err().strip());
        Result env = ortex("eps", "--env", "allow_virtual_devices=1");
        assertEquals(2, env.exit(), env.out() + env.err());
        assertEquals(1, env.err().strip().lines().count(), env.err());
        assertTrue(env.err().startsWith("ortex: --env allow_virtual_devices: ") && env.err().contains("ConfigAdmin"),
                env.err());
    }

    @Test
    void runsAModelAndReportsJson(@TempDir Path dir) throws Exception {
        Path model = dir.resolve("add.onnx");
        Files.write(model, addModel().toByteArray());
        Result r = ortex("run", model.toString(), "--json", "--repeat", "3");
        assertEquals(0, r.exit(), r.err());
        for (String field : List.of("session_create_ms", "latency_ms", "median", "p90", "outputs", "assignment")) {
            assertTrue(r.out().contains("\"" + field + "\""), field + " missing in " + r.out());
        }
        assertTrue(r.out().contains("\"ep\" : \"CPUExecutionProvider\""), r.out());
    }

    @Test
    void theDemoRunsInTheFrameworkWithNothingToSetUp() throws Exception {
        Result r = ortex("demo");
        assertEquals(0, r.exit(), r.out() + r.err());
        assertTrue(r.out().contains("similarity"), r.out());
        assertTrue(r.out().contains("policy     PREFER_NPU chose [ExampleExecutionProvider, OrtExecutionProvider, "
                + "CPUExecutionProvider]"), "the example EP comes from examples/, the ONNX Runtime EP from deploy/: "
                + r.out());
    }

    @Test
    void badInputGivesOneLineAndExitTwo(@TempDir Path dir) throws Exception {
        Path junk = dir.resolve("junk.onnx");
        Files.writeString(junk, "this is not a model");
        Result r = ortex("run", junk.toString());
        assertEquals(2, r.exit());
        assertEquals(1, r.err().strip().lines().count(), r.err());
        assertTrue(r.err().startsWith("ortex: ") && r.err().contains(junk.toString()), r.err());
    }

    @Test
    void testVerbReportsPassCounts() throws Exception {
        Path cases = Path.of(System.getProperty("ortex.shared", "../../shared"), "conformance", "onnx-node");
        Result r = ortex("test", cases.resolve("test_relu").toString(), cases.resolve("test_add_int16").toString());
        assertEquals(0, r.exit(), r.out() + r.err());
        assertTrue(r.out().strip().endsWith("2 passed, 0 failed"), r.out());
    }

    static Onnx.ModelProto addModel() {
        Onnx.TypeProto type = Onnx.TypeProto.newBuilder().setTensorType(Onnx.TypeProto.Tensor.newBuilder()
                .setElemType(1).setShape(Onnx.TensorShapeProto.newBuilder()
                        .addDim(Onnx.TensorShapeProto.Dimension.newBuilder().setDimValue(4)))).build();
        Onnx.GraphProto graph = Onnx.GraphProto.newBuilder().setName("add")
                .addInput(Onnx.ValueInfoProto.newBuilder().setName("a").setType(type))
                .addInput(Onnx.ValueInfoProto.newBuilder().setName("b").setType(type))
                .addOutput(Onnx.ValueInfoProto.newBuilder().setName("c").setType(type))
                .addNode(Onnx.NodeProto.newBuilder().setOpType("Add").addInput("a").addInput("b").addOutput("c"))
                .build();
        return Onnx.ModelProto.newBuilder().setIrVersion(8).setGraph(graph)
                .addOpsetImport(Onnx.OperatorSetIdProto.newBuilder().setVersion(17)).build();
    }
}
