package io.ortex.itests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ortex.api.Tensor;
import io.ortex.onnx.proto.Onnx;
import io.ortex.testing.BackendTestCase;
import io.ortex.testing.ModelBuilder;
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
        return ortex(DIST, Map.of(), modulePath, args);
    }

    static Result ortex(Map<String, String> env, boolean modulePath, String... args)
            throws IOException, InterruptedException {
        return ortex(DIST, env, modulePath, args);
    }

    static Result ortex(Path home, boolean modulePath, String... args) throws IOException, InterruptedException {
        return ortex(home, Map.of(), modulePath, args);
    }

    /**
     * Runs {@code bin/ortex} of a distribution folder.
     *
     * @param home the distribution folder
     * @param env environment variables added to the process's
     * @param modulePath whether to run on the JPMS module path instead of the framework
     * @param args the verb and its arguments
     * @return the exit status and output
     */
    static Result ortex(Path home, Map<String, String> env, boolean modulePath, String... args)
            throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>();
        cmd.add(home.resolve("bin/ortex").toString());
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
    void theDemoModelIsAnOnnxFileThatRunTakes() throws Exception {
        Path model = DIST.resolve("models/all-minilm-l6-v2/1/model.onnx");
        assertTrue(Files.isRegularFile(model.resolveSibling("tokenizer.json")), "the tokenizer lies beside the model");
        Result r = ortex("run", model.toString(), "--shape", "input_ids=1x16", "--shape", "attention_mask=1x16",
                "--shape", "token_type_ids=1x16", "--json");
        assertEquals(0, r.exit(), r.out() + r.err());
        assertTrue(r.out().contains("\"name\" : \"last_hidden_state\"") && r.out().contains("[ 1, 16, 384 ]"),
                r.out());
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
    void testVerbReportsPassCounts(@TempDir Path dir) throws Exception {
        Path relu = reluCase(dir.resolve("test_relu"));
        Path add = BackendTestCase.write(dir.resolve("test_add"), addModel(),
                List.of(Tensor.ofFloats(new float[] {1, 2, 3, 4}, 4), Tensor.ofFloats(new float[] {10, 20, 30, 40}, 4)),
                List.of(Tensor.ofFloats(new float[] {11, 22, 33, 44}, 4)));
        Result r = ortex("test", relu.toString(), add.toString());
        assertEquals(0, r.exit(), r.out() + r.err());
        assertTrue(r.out().strip().endsWith("2 passed, 0 failed"), r.out());
        Path wrong = BackendTestCase.write(dir.resolve("test_add_wrong"), addModel(),
                List.of(Tensor.ofFloats(new float[] {1, 2, 3, 4}, 4), Tensor.ofFloats(new float[] {1, 1, 1, 1}, 4)),
                List.of(Tensor.ofFloats(new float[] {2, 3, 4, 6}, 4)));
        Result failed = ortex("test", relu.toString(), wrong.toString());
        assertEquals(1, failed.exit(), failed.out() + failed.err());
        assertTrue(failed.out().strip().endsWith("1 passed, 1 failed"), failed.out());
    }

    /**
     * Writes a backend test case of one Relu node on a 3x4 float tensor.
     *
     * @param folder the case's folder
     * @return the folder
     */
    static Path reluCase(Path folder) throws IOException {
        Onnx.ModelProto model = new ModelBuilder().input("x", 3, 4)
                .node("Relu", "relu", List.of("x"), List.of("y")).output("y", 3, 4).proto();
        float[] x = new float[12];
        float[] y = new float[12];
        for (int i = 0; i < x.length; i++) {
            x[i] = i - 5.5f;
            y[i] = Math.max(0, x[i]);
        }
        return BackendTestCase.write(folder, model, List.of(Tensor.ofFloats(x, 3, 4)),
                List.of(Tensor.ofFloats(y, 3, 4)));
    }

    static Onnx.ModelProto addModel() {
        return new ModelBuilder().input("a", 4).input("b", 4)
                .node("Add", "add", List.of("a", "b"), List.of("c")).output("c", 4).proto();
    }
}
