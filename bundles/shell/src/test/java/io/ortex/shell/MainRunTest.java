package io.ortex.shell;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import io.ortex.api.Tensor;
import io.ortex.shell.internal.TensorFiles;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code ortex devices}, {@code ortex eps} and {@code ortex run} on good input. */
class MainRunTest {
    @TempDir
    Path dir;

    /** Parses JSON into maps, lists, strings, numbers (as double) and booleans. */
    static Object parse(String json) throws IOException {
        try (JsonParser p = new JsonFactory().createParser(json)) {
            p.nextToken();
            Object value = read(p);
            assertEquals(null, p.nextToken(), "one JSON document");
            return value;
        }
    }

    private static Object read(JsonParser p) throws IOException {
        JsonToken t = p.currentToken();
        switch (t) {
            case START_OBJECT: {
                Map<String, Object> m = new LinkedHashMap<>();
                while (p.nextToken() == JsonToken.FIELD_NAME) {
                    String name = p.currentName();
                    p.nextToken();
                    m.put(name, read(p));
                }
                return m;
            }
            case START_ARRAY: {
                List<Object> l = new ArrayList<>();
                while (p.nextToken() != JsonToken.END_ARRAY) {
                    l.add(read(p));
                }
                return l;
            }
            case VALUE_STRING: return p.getText();
            case VALUE_NUMBER_INT: case VALUE_NUMBER_FLOAT: return p.getDoubleValue();
            case VALUE_TRUE: return true;
            case VALUE_FALSE: return false;
            default: return null;
        }
    }

    @SuppressWarnings("unchecked")
    static Map<String, Object> object(Object o) {
        return (Map<String, Object>) o;
    }

    @SuppressWarnings("unchecked")
    static List<Object> list(Object o) {
        return (List<Object>) o;
    }

    private Path model() throws IOException {
        return Models.addMulRelu().write(dir.resolve("m.onnx"));
    }

    private Path tensor(String file, String name, float[] data, long... shape) {
        Path p = dir.resolve(file);
        TensorFiles.write(Tensor.ofFloats(data, shape), name, p);
        return p;
    }

    @Test
    void devicesListsTheCpu() throws IOException {
        Cli text = Cli.run("devices");
        assertEquals(0, text.status(), text.toString());
        assertTrue(text.outLines().get(0).startsWith("TYPE"), text.toString());
        assertTrue(text.outLines().stream().skip(1).anyMatch(l -> l.startsWith("CPU ")), text.toString());
        assertEquals("", text.err());
        Cli json = Cli.run("devices", "--json");
        assertEquals(0, json.status(), json.toString());
        List<Object> devices = list(parse(json.out()));
        assertTrue(devices.stream().anyMatch(d -> "CPU".equals(object(d).get("type"))), json.out());
        assertTrue(object(devices.get(0)).containsKey("vendor_id"), json.out());
    }

    @Test
    void epsListsTheCpuEpWithVersionAndState() throws IOException {
        Cli text = Cli.run("eps");
        assertEquals(0, text.status(), text.toString());
        assertTrue(text.outLines().get(0).startsWith("EP "), text.toString());
        String cpu = text.outLines().stream().filter(l -> l.startsWith("CPUExecutionProvider")).findFirst()
                .orElseThrow(() -> new AssertionError(text));
        assertTrue(cpu.contains(" CPU ") && cpu.contains("0.1.0") && cpu.contains("ACTIVE"), cpu);
        Cli json = Cli.run("eps", "--json");
        assertEquals(0, json.status(), json.toString());
        Map<String, Object> ep = list(parse(json.out())).stream().map(MainRunTest::object)
                .filter(m -> "CPUExecutionProvider".equals(m.get("ep"))).findFirst().orElseThrow();
        assertEquals("Ortex", ep.get("vendor"));
        assertEquals("CPU", ep.get("device_type"));
        assertEquals("0.1.0", ep.get("version"));
        assertEquals("ACTIVE", ep.get("state"));
        assertEquals(false, ep.get("virtual"));
        assertEquals("0.1.0", object(ep.get("ep_metadata")).get("version"));
    }

    @Test
    void epsVerboseSaysWhyEachEpDoesNotOfferADevice() throws IOException {
        Cli text = Cli.run("eps", "--verbose", "--env", "allow_virtual_devices=1");
        assertEquals(0, text.status(), text.toString());
        int heading = text.outLines().indexOf("DEVICES NOT OFFERED (what each EP's factory says)");
        assertTrue(heading > 0, text.toString());
        List<String> lines = text.outLines().subList(heading + 1, text.outLines().size());
        // the example EP's own reasons for this machine's CPU, and the CPU EP's for the example EP's virtual NPU
        assertTrue(lines.stream().anyMatch(l -> l.startsWith("  ExampleExecutionProvider on CPU ")
                && l.contains("device incompatible; error code 1; ExampleExecutionProvider emulates an NPU")),
                text.toString());
        assertTrue(lines.stream().anyMatch(l -> l.startsWith("  CPUExecutionProvider on NPU ")
                && l.contains("(virtual): device incompatible; CPUExecutionProvider runs on this machine's CPUs")),
                text.toString());
        assertTrue(lines.stream().noneMatch(l -> l.startsWith("  CPUExecutionProvider on CPU ")), text.toString());
        Cli plain = Cli.run("eps");
        assertTrue(plain.outLines().stream().noneMatch(l -> l.startsWith("DEVICES NOT OFFERED")), plain.toString());

        Cli json = Cli.run("eps", "--json", "--verbose", "--env", "allow_virtual_devices=1");
        assertEquals(0, json.status(), json.toString());
        Map<String, Object> example = list(parse(json.out())).stream().map(MainRunTest::object)
                .filter(m -> "ExampleExecutionProvider".equals(m.get("ep"))).findFirst().orElseThrow();
        Map<String, Object> cpu = list(example.get("devices_not_offered")).stream().map(MainRunTest::object)
                .filter(m -> "CPU".equals(m.get("type"))).findFirst().orElseThrow(() -> new AssertionError(json));
        assertEquals(List.of("device incompatible"), cpu.get("reasons"));
        assertEquals(1, ((Number) cpu.get("error_code")).intValue());
        assertTrue(((String) cpu.get("notes")).startsWith("ExampleExecutionProvider emulates"), json.out());
    }

    @Test
    void devicesRefusesAPositionalArgument() {
        Cli r = Cli.run("devices", "extra");
        assertEquals(2, r.status(), r.toString());
        assertEquals(1, r.errLines().size(), r.toString());
        assertTrue(r.err().startsWith("ortex: ") && r.err().contains("extra"), r.toString());
    }

    @Test
    void runPrintsOutputsEpsAndLatencyAsText() throws IOException {
        Cli r = Cli.run("run", model().toString());
        assertEquals(0, r.status(), r.toString());
        assertEquals("", r.err());
        assertTrue(r.out().contains("EPs       CPUExecutionProvider"), r.toString());
        assertTrue(r.out().contains("3 nodes on CPUExecutionProvider"), r.toString());
        assertTrue(r.out().contains("output    out[float32 2x3: "), r.toString());
        assertTrue(r.out().contains("over 1 runs"), r.toString());
    }

    @Test
    void runJsonHasTimingsOutputsEpsAndAssignment() throws IOException {
        Cli r = Cli.run("run", model().toString(), "--json", "--repeat", "5", "--warmup", "2");
        assertEquals(0, r.status(), r.toString());
        Map<String, Object> doc = object(parse(r.out()));
        assertTrue((double) doc.get("session_create_ms") >= 0, r.out());
        Map<String, Object> latency = object(doc.get("latency_ms"));
        double min = (double) latency.get("min");
        double median = (double) latency.get("median");
        double p90 = (double) latency.get("p90");
        assertTrue(0 <= min && min <= median && median <= p90, r.out());
        assertEquals(5.0, latency.get("runs"));
        List<Object> outputs = list(doc.get("outputs"));
        assertEquals(1, outputs.size());
        assertEquals("out", object(outputs.get(0)).get("name"));
        assertEquals("float32", object(outputs.get(0)).get("type"));
        assertEquals(List.of(2.0, 3.0), object(outputs.get(0)).get("shape"));
        assertEquals(List.of("CPUExecutionProvider"), doc.get("eps"));
        List<Object> assignment = list(doc.get("assignment"));
        assertEquals(List.of("add", "mul", "relu"), assignment.stream().map(a -> object(a).get("node")).toList());
        assertEquals(List.of("Add", "Mul", "Relu"), assignment.stream().map(a -> object(a).get("op")).toList());
        assertTrue(assignment.stream().allMatch(a -> "CPUExecutionProvider".equals(object(a).get("ep"))));
    }

    @Test
    void runShowsWhereValuesAreCopiedBetweenTheExampleEpsDeviceMemoryAndTheHost() throws IOException {
        Path m = Models.split().write(dir.resolve("split.onnx"));
        List<String> example = List.of("run", m.toString(), "--env", "allow_virtual_devices=1", "--ep",
                "ExampleExecutionProvider", "--ep", "CPUExecutionProvider", "--config",
                "ep.exampleexecutionprovider.memory=device", "--repeat", "3", "--warmup", "1", "--seed", "5");
        List<String> json = new java.util.ArrayList<>(example);
        json.add("--json");
        Cli r = Cli.run(json.toArray(String[]::new));
        assertEquals(0, r.status(), r.toString());
        List<Map<String, Object>> copies = list(object(parse(r.out())).get("copies")).stream()
                .map(MainRunTest::object).toList();
        assertEquals(List.of("x Cpu ExampleNpu run", "m ExampleNpu Cpu run", "g Cpu ExampleNpu run",
                "out ExampleNpu Cpu output"), copies.stream().map(c -> c.get("value") + " " + c.get("from") + " "
                + c.get("to") + " " + c.get("when")).toList());
        for (Map<String, Object> c : copies) {
            assertEquals(4.0, c.get("count"), "3 runs and a warm-up: " + c);
        }
        assertEquals(4 * 2 * 3 * 4.0, copies.get(0).get("bytes"), "x is 24 bytes");
        assertEquals(4 * 2 * 2 * 4.0, copies.get(3).get("bytes"), "out is 16 bytes");
        Cli text = Cli.run(example.toArray(String[]::new));
        assertEquals(0, text.status(), text.toString());
        assertTrue(text.out().contains("copies    x Cpu->ExampleNpu, m ExampleNpu->Cpu, g Cpu->ExampleNpu, "
                + "out ExampleNpu->Cpu (16 copies, 288 bytes)"), text.out());
        Cli cpu = Cli.run("run", m.toString(), "--json", "--seed", "5");
        assertEquals(List.of(), object(parse(cpu.out())).get("copies"), cpu.out());
        assertTrue(!Cli.run("run", m.toString(), "--seed", "5").out().contains("copies"));
    }

    @Test
    void runProfileWritesAChromeTraceWithOneEventPerNode() throws IOException {
        Path trace = dir.resolve("trace.json");
        Cli r = Cli.run("run", model().toString(), "--repeat", "3", "--profile", trace.toString(), "--json");
        assertEquals(0, r.status(), r.toString());
        assertEquals(trace.toString(), object(parse(r.out())).get("profile"));
        List<Object> events = list(parse(Files.readString(trace)));
        List<Map<String, Object>> nodes = events.stream().map(MainRunTest::object)
                .filter(e -> "Node".equals(e.get("cat"))).toList();
        assertEquals(3 * 3, nodes.size(), "3 nodes, 3 runs");
        assertEquals(3, events.stream().map(MainRunTest::object).filter(e -> "model_run".equals(e.get("name")))
                .count());
        assertEquals(1, events.stream().map(MainRunTest::object)
                .filter(e -> "session_initialization".equals(e.get("name"))).count());
        for (Map<String, Object> e : events.stream().map(MainRunTest::object).toList()) {
            assertEquals("X", e.get("ph"), e.toString());
            assertTrue((double) e.get("dur") >= 0 && (double) e.get("ts") >= 0, e.toString());
        }
        Map<String, Object> add = nodes.stream().filter(e -> object(e.get("args")).get("op_name").equals("Add"))
                .findFirst().orElseThrow();
        Map<String, Object> args = object(add.get("args"));
        assertEquals("CPUExecutionProvider", args.get("provider"));
        assertEquals(List.of(Map.of("float32", List.of(2.0, 3.0)), Map.of("float32", List.of(3.0))),
                args.get("input_type_shape"));
        assertEquals(List.of(Map.of("float32", List.of(2.0, 3.0))), args.get("output_type_shape"));
        try (var files = Files.list(dir)) {
            assertTrue(files.noneMatch(f -> f.getFileName().toString().endsWith(".tmp")), "no temporary file left");
        }
        Cli text = Cli.run("run", model().toString(), "--profile", trace.toString());
        assertTrue(text.out().contains("profile   " + trace), text.toString());
    }

    @Test
    void runProfileRefusesAFolderOrAMissingParent() throws IOException {
        Cli folder = Cli.run("run", model().toString(), "--profile", dir.toString());
        assertEquals(2, folder.status(), folder.toString());
        assertTrue(folder.err().startsWith("ortex: --profile ") && folder.err().contains("folder"), folder.toString());
        Cli missing = Cli.run("run", model().toString(), "--profile", dir.resolve("no/such/t.json").toString());
        assertEquals(2, missing.status(), missing.toString());
        assertTrue(missing.err().contains("does not exist"), missing.toString());
    }

    @Test
    void runWithGivenInputsWritesReadableOutputs() throws IOException {
        float[] x = {1, 2, 3, -4, -5, -6};
        float[] y = {2, 2, 2, -1, 1, -3};
        Path out = dir.resolve("results/nested");
        Cli r = Cli.run("run", model().toString(), "--input", "x=" + tensor("x.pb", "x", x, 2, 3),
                "--input=y=" + tensor("y.pb", "y", y, 2, 3), "--output-dir", out.toString());
        assertEquals(0, r.status(), r.toString());
        Tensor t = TensorFiles.read(out.resolve("output_0.pb"));
        assertArrayEquals(new long[] {2, 3}, t.shape());
        assertArrayEquals(new float[] {4, 0, 7, 3, 0, 16.5f}, t.floats());
        try (var files = Files.list(out)) {
            assertEquals(List.of("output_0.pb"), files.map(f -> f.getFileName().toString()).toList(),
                    "no temporary file is left behind");
        }
    }

    @Test
    void runReadsAnInputsFolder() throws IOException {
        Path inputs = Files.createDirectories(dir.resolve("set"));
        TensorFiles.write(Tensor.ofFloats(new float[] {1, 2, 3, -4, -5, -6}, 2, 3), "x", inputs.resolve("input_0.pb"));
        TensorFiles.write(Tensor.ofFloats(new float[] {2, 2, 2, -1, 1, -3}, 2, 3), "y", inputs.resolve("input_1.pb"));
        Path out = dir.resolve("out");
        Cli r = Cli.run("run", model().toString(), "--inputs", inputs.toString(), "--output-dir", out.toString());
        assertEquals(0, r.status(), r.toString());
        assertArrayEquals(new float[] {4, 0, 7, 3, 0, 16.5f}, TensorFiles.read(out.resolve("output_0.pb")).floats());
    }

    @Test
    void randomInputsAreSeededAndRepeatable() throws IOException {
        Path m = model();
        Path a = dir.resolve("a");
        Path b = dir.resolve("b");
        Path c = dir.resolve("c");
        assertEquals(0, Cli.run("run", m.toString(), "--output-dir", a.toString()).status());
        assertEquals(0, Cli.run("run", m.toString(), "--output-dir", b.toString()).status());
        assertEquals(0, Cli.run("run", m.toString(), "--seed", "7", "--output-dir", c.toString()).status());
        float[] first = TensorFiles.read(a.resolve("output_0.pb")).floats();
        assertArrayEquals(first, TensorFiles.read(b.resolve("output_0.pb")).floats());
        assertTrue(!java.util.Arrays.equals(first, TensorFiles.read(c.resolve("output_0.pb")).floats()));
    }

    @Test
    void shapeSizesSymbolicDimensions() throws IOException {
        Path m = Models.symbolic().write(dir.resolve("sym.onnx"));
        Cli r = Cli.run("run", m.toString(), "--shape", "x=3x4", "--json");
        assertEquals(0, r.status(), r.toString());
        assertEquals(List.of(3.0, 4.0), object(list(object(parse(r.out())).get("outputs")).get(0)).get("shape"));
        Cli defaults = Cli.run("run", m.toString(), "--json");
        assertEquals(0, defaults.status(), defaults.toString());
        assertEquals(List.of(1.0, 4.0),
                object(list(object(parse(defaults.out())).get("outputs")).get(0)).get("shape"),
                "a symbolic dimension defaults to 1");
    }

    @Test
    void helpPrintsUsage() {
        Cli r = Cli.run("help");
        assertEquals(0, r.status());
        assertTrue(r.out().startsWith("usage: ortex"), r.toString());
        Cli none = Cli.run();
        assertEquals(2, none.status());
        assertTrue(none.out().startsWith("usage: ortex"), none.toString());
    }

    @Test
    void randomInputsAreAnnouncedInTextAndJson() throws IOException {
        Path m = model();
        Cli text = Cli.run("run", m.toString());
        assertEquals(0, text.status(), text.toString());
        assertTrue(text.out().contains("inputs    random (seed 42): x, y"), text.out());
        Cli json = Cli.run("run", m.toString(), "--json", "--seed", "3");
        assertEquals(0, json.status(), json.toString());
        Map<String, Object> report = object(parse(json.out()));
        assertEquals(List.of("x", "y"), report.get("random_inputs"));
        assertEquals(3.0, report.get("seed"));

        Path x = dir.resolve("x.pb");
        TensorFiles.write(Tensor.ofFloats(new float[6], 2, 3), "x", x);
        Cli asked = Cli.run("run", m.toString(), "--input", "x=" + x, "--random-inputs", "--json");
        assertEquals(0, asked.status(), asked.toString());
        assertEquals(List.of("y"), object(parse(asked.out())).get("random_inputs"));

        Path inputs = Files.createDirectories(dir.resolve("all"));
        TensorFiles.write(Tensor.ofFloats(new float[6], 2, 3), "x", inputs.resolve("input_0.pb"));
        TensorFiles.write(Tensor.ofFloats(new float[6], 2, 3), "y", inputs.resolve("input_1.pb"));
        Cli given = Cli.run("run", m.toString(), "--inputs", inputs.toString(), "--json");
        assertEquals(0, given.status(), given.toString());
        assertEquals(List.of(), object(parse(given.out())).get("random_inputs"));
        Cli givenText = Cli.run("run", m.toString(), "--inputs", inputs.toString());
        assertTrue(!givenText.out().contains("random"), givenText.out());
    }
}
