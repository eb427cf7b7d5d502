package io.ortex.itests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ortex.shell.internal.MlpModel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code --env KEY=VALUE} on the one-shot verbs of the distribution: each verb starts a framework of its own, and the
 * entries configure that framework's runtime. The example EP sits in {@code deploy/} without a virtual-device grant,
 * so it offers its virtual NPU only to a verb run with {@code --env allow_virtual_devices=1}; otherwise
 * {@code ortex eps} lists it with the reason it offers no device.
 */
class CommandEnvironmentIT {
    private static final String NPU = "ExampleExecutionProvider";
    private static final String[] ALLOW = {"--env", "allow_virtual_devices=1"};

    private static Path distributionWithTheExampleEp(Path dir) throws Exception {
        Path home = ShellProcess.copyDistribution(dir.resolve("ortex"));
        Files.copy(EpSplitIT.exampleJar(), home.resolve("deploy/example.jar"));
        return home;
    }

    private static DistributionIT.Result ortex(Path home, String... args) throws Exception {
        return DistributionIT.ortex(home, false, args);
    }

    private static String[] with(String[] first, String... more) {
        return Stream.concat(Stream.of(first), Stream.of(more)).toArray(String[]::new);
    }

    @Test
    void envAppliesToTheRuntimeOfEachVerb(@TempDir Path dir) throws Exception {
        Path home = distributionWithTheExampleEp(dir);
        Path model = dir.resolve("mlp.onnx");
        Files.write(model, MlpModel.build(8, 16, 4, 3));

        DistributionIT.Result plain = ortex(home, "run", model.toString(), "--shape", "x=2x8", "--policy",
                "PREFER_NPU", "--json");
        assertEquals(0, plain.exit(), plain.err());
        assertFalse(plain.out().contains("\"ep\" : \"" + NPU + "\""), "without a grant the NPU is not offered");
        DistributionIT.Result why = ortex(home, "eps");
        assertEquals(0, why.exit(), why.err());
        List<String> lines = why.out().lines().toList();
        int row = lines.indexOf(lines.stream().filter(l -> l.startsWith(NPU)).findFirst().orElseThrow(
                () -> new AssertionError("the EP without a device is not listed:\n" + why.out())));
        assertTrue(lines.get(row).contains(" ACTIVE "), why.out());
        assertTrue(lines.get(row + 1).startsWith("  no device: virtual devices not granted"), why.out());
        DistributionIT.Result whyJson = ortex(home, "eps", "--json");
        assertTrue(whyJson.out().contains("\"no_device\" : \"virtual devices not granted"), whyJson.out());

        DistributionIT.Result run = ortex(home, with(new String[] {"run", model.toString(), "--shape", "x=2x8",
            "--policy", "PREFER_NPU", "--json"}, ALLOW));
        assertEquals(0, run.exit(), run.out() + run.err());
        assertTrue(run.out().contains("\"ep\" : \"" + NPU + "\""), run.out());

        DistributionIT.Result eps = ortex(home, with(new String[] {"eps", "--json"}, ALLOW));
        assertEquals(0, eps.exit(), eps.err());
        assertTrue(eps.out().contains("\"ep\" : \"" + NPU + "\"") && eps.out().contains("\"virtual\" : true"),
                eps.out());

        DistributionIT.Result devices = ortex(home, with(new String[] {"devices"}, ALLOW));
        assertEquals(0, devices.exit(), devices.err());
        assertTrue(devices.out().lines().anyMatch(l -> l.startsWith("NPU ") && l.contains(" yes ")), devices.out());

        Path compiled = dir.resolve("mlp_ctx.onnx");
        DistributionIT.Result compile = ortex(home, with(new String[] {"compile", model.toString(), "-o",
            compiled.toString(), "--policy", "PREFER_NPU"}, ALLOW));
        assertEquals(0, compile.exit(), compile.out() + compile.err());
        assertTrue(compile.out().contains(NPU + ": ") && Files.isRegularFile(compiled), compile.out());

        Path relu = DistributionIT.reluCase(dir.resolve("test_relu"));
        DistributionIT.Result test = ortex(home, with(new String[] {"test", relu.toString(), "--policy",
            "PREFER_NPU"}, ALLOW));
        assertEquals(0, test.exit(), test.out() + test.err());
        assertTrue(test.out().strip().endsWith("1 passed, 0 failed"), test.out());
    }

    @Test
    void anyEnvironmentEntryReachesTheRuntime(@TempDir Path dir) throws Exception {
        Path home = distributionWithTheExampleEp(dir);
        Path model = dir.resolve("mlp.onnx");
        Files.write(model, MlpModel.build(8, 16, 4, 4));
        Path cache = dir.resolve("compile-cache");
        DistributionIT.Result run = ortex(home, "run", model.toString(), "--shape", "x=1x8", "--policy",
                "PREFER_NPU", "--env", "allow_virtual_devices=1", "--env=ortex.compile_cache.dir=" + cache);
        assertEquals(0, run.exit(), run.out() + run.err());
        try (Stream<Path> entries = Files.walk(cache)) {
            assertTrue(entries.anyMatch(Files::isRegularFile), "the compile cache named by --env was filled");
        }
    }

    @Test
    void aMalformedEntryIsOneLineAndExitTwo(@TempDir Path dir) throws Exception {
        DistributionIT.Result r = ortex(distributionWithTheExampleEp(dir), "eps", "--env", "allow_virtual_devices");
        assertEquals(2, r.exit(), r.out() + r.err());
        assertEquals(1, r.err().strip().lines().count(), r.err());
        assertTrue(r.err().startsWith("ortex: option --env needs KEY=VALUE"), r.err());
    }
}
