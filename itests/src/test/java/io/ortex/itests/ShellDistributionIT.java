package io.ortex.itests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ortex.shell.internal.MlpModel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The distribution started as a user starts it, {@code bin/ortex} with the Gogo shell on piped standard input, in a
 * copy of the distribution whose {@code conf/io.ortex.runtime.cfg} grants the example EP virtual devices and makes
 * EP removal wait for its sessions: start-up time, every {@code ortex:*} command, hot deployment through
 * {@code deploy/}, and an EP left DRAINING by an open session until {@code ortex:close}.
 */
class ShellDistributionIT {
    private static final String EXAMPLE_EP = "ExampleExecutionProvider";
    private static final Pattern SESSION_ID = Pattern.compile("^(s\\d+)$", Pattern.MULTILINE);

    private static Path distribution(Path dir) throws Exception {
        Path home = ShellProcess.copyDistribution(dir.resolve("ortex"));
        Files.writeString(home.resolve("conf/io.ortex.runtime.cfg"), String.join("\n",
                "virtual.grants=io.ortex.ep.example", "drain.outcome=wait", "drain.limit.seconds=1", ""));
        return home;
    }

    /** Copies the example EP into deploy/ the safe way: under a name FileInstall ignores, then renamed. */
    private static Path deployExample(Path home) throws Exception {
        Path tmp = home.resolve("deploy/example.jar.tmp");
        Files.copy(EpSplitIT.exampleJar(), tmp);
        return Files.move(tmp, home.resolve("deploy/example.jar"), StandardCopyOption.ATOMIC_MOVE);
    }

    private static long awaitEps(ShellProcess shell, String what, java.util.function.Predicate<String> condition)
            throws Exception {
        long t0 = System.nanoTime();
        long end = System.currentTimeMillis() + 10_000;
        String eps = shell.run("ortex:eps");
        while (!condition.test(eps)) {
            if (System.currentTimeMillis() > end) {
                throw new AssertionError("ortex:eps never showed " + what + "; last:\n" + eps);
            }
            Thread.sleep(50);
            eps = shell.run("ortex:eps");
        }
        return (System.nanoTime() - t0) / 1_000_000;
    }

    @Test
    void startsToAReadyShellQuickly(@TempDir Path dir) throws Exception {
        try (ShellProcess shell = ShellProcess.start(distribution(dir))) {
            String eps = shell.run("ortex:eps");
            long ready = shell.elapsedMillis();
            System.out.println("ShellDistributionIT: first ortex:eps answered " + ready + " ms after the start");
            assertTrue(eps.contains("CPUExecutionProvider") && eps.contains("ACTIVE"), eps);
            assertTrue(ready < 10_000, "the shell took " + ready + " ms to answer");
        }
    }

    @Test
    void everyShellCommandRuns(@TempDir Path dir) throws Exception {
        Path home = distribution(dir);
        Path model = dir.resolve("mlp.onnx");
        Files.write(model, MlpModel.build(8, 16, 4, 5));
        Path relu = DistributionIT.reluCase(dir.resolve("test_relu"));
        try (ShellProcess shell = ShellProcess.start(home)) {
            String devices = shell.run("ortex:devices");
            assertTrue(devices.startsWith("TYPE ") && devices.contains("CPU"), devices);
            assertTrue(shell.run("ortex:devices --json").contains("\"type\" : \"CPU\""));
            assertTrue(shell.run("ortex:eps --json").contains("\"state\" : \"ACTIVE\""));

            String run = shell.run("ortex:run " + model + " --shape x=2x8 --repeat 2");
            assertTrue(run.contains("CPUExecutionProvider") && run.contains("latency"), run);
            String test = shell.run("ortex:test " + relu);
            assertTrue(test.strip().endsWith("1 passed, 0 failed"), test);
            Path compiled = dir.resolve("mlp_ctx.onnx");
            String compile = shell.run("ortex:compile " + model + " -o " + compiled);
            assertTrue(compile.startsWith("compiled ") && Files.isRegularFile(compiled), compile);

            String id = sessionId(shell.run("ortex:open " + model));
            String runOpen = shell.run("ortex:run " + id + " --shape x=1x8 --repeat 3");
            assertTrue(runOpen.contains("over 3 runs"), runOpen);
            String sessions = shell.run("ortex:sessions");
            assertTrue(sessions.lines().anyMatch(l -> l.startsWith(id + " ") && l.contains(model.toString())
                    && l.matches(".*\\s3\\s+\\d+s$")), sessions);
            assertEquals("closed " + id, shell.run("ortex:close " + id).strip());
            assertEquals(1, shell.run("ortex:sessions").strip().lines().count(), "only the header is left");

            assertEquals("none (sessions use DEFAULT)", shell.run("ortex:policy").strip());
            assertEquals("default.policy = PREFER_NPU", shell.run("ortex:policy prefer_npu").strip());
            assertEquals("PREFER_NPU", shell.run("ortex:policy").strip());

            List<String> errors = List.of(shell.run("ortex:close s999"), shell.run("ortex:run /no/such.onnx"),
                    shell.run("ortex:policy fastest"), shell.run("ortex:open " + model + " --env a=1"));
            for (String e : errors) {
                assertEquals(1, e.strip().lines().count(), e);
                assertTrue(e.startsWith("ortex: "), e);
            }
            String env = shell.run("ortex:run " + model + " --shape x=1x8 --env allow_virtual_devices=1");
            assertTrue(env.startsWith("ortex: --env allow_virtual_devices: ") && env.contains("ConfigAdmin")
                    && env.contains("ortex:policy"), "the shared runtime refuses --env: " + env);
            for (String table : List.of(devices, shell.run("ortex:eps"), sessions)) {
                assertTrue(table.lines().allMatch(l -> l.length() <= 100), table);
            }
        }
    }

    @Test
    void anEpDroppedIntoDeployAppearsAndGoesAway(@TempDir Path dir) throws Exception {
        Path home = distribution(dir);
        try (ShellProcess shell = ShellProcess.start(home)) {
            assertFalse(shell.run("ortex:eps").contains(EXAMPLE_EP), "not installed by default");
            Path jar = deployExample(home);
            long appeared = awaitEps(shell, EXAMPLE_EP, eps -> eps.contains(EXAMPLE_EP));
            System.out.println("ShellDistributionIT: the example EP appeared " + appeared + " ms after the copy");
            assertTrue(appeared <= 2_000, "appeared after " + appeared + " ms");
            assertTrue(shell.run("ortex:eps").lines().anyMatch(l -> l.startsWith(EXAMPLE_EP)
                    && l.contains(" NPU ") && l.contains(" yes ") && l.contains(" ACTIVE ")));
            Files.delete(jar);
            long gone = awaitEps(shell, "the example EP gone", eps -> !eps.contains(EXAMPLE_EP));
            assertTrue(gone <= 2_000, "gone after " + gone + " ms");
        }
    }

    @Test
    void anEpWithoutADeviceIsListedWithWhyUntilAGrantArrives(@TempDir Path dir) throws Exception {
        Path home = ShellProcess.copyDistribution(dir.resolve("ortex"));
        try (ShellProcess shell = ShellProcess.start(home)) {
            deployExample(home);
            awaitEps(shell, "the example EP without a device", eps -> eps.lines().anyMatch(l -> l.startsWith(EXAMPLE_EP)
                    && l.contains(" ACTIVE ")) && eps.contains("  no device: virtual devices not granted"));
            Path cfg = home.resolve("deploy/io.ortex.runtime.cfg.tmp");
            Files.writeString(cfg, "virtual.grants=io.ortex.ep.example\n");
            Files.move(cfg, home.resolve("deploy/io.ortex.runtime.cfg"), StandardCopyOption.ATOMIC_MOVE);
            awaitEps(shell, "the granted virtual NPU", eps -> eps.lines().anyMatch(l -> l.startsWith(EXAMPLE_EP)
                    && l.contains(" NPU ") && l.contains(" yes ")) && !eps.contains("no device"));
        }
    }

    @Test
    void anOpenSessionKeepsARemovedEpDrainingUntilClosed(@TempDir Path dir) throws Exception {
        Path home = distribution(dir);
        Path model = dir.resolve("mlp.onnx");
        Files.write(model, MlpModel.build(8, 16, 4, 9));
        String id;
        try (ShellProcess shell = ShellProcess.start(home)) {
            Path jar = deployExample(home);
            awaitEps(shell, EXAMPLE_EP, eps -> eps.contains(EXAMPLE_EP));
            id = sessionId(shell.run("ortex:open " + model + " --ep " + EXAMPLE_EP + " --ep "
                    + "CPUExecutionProvider"));
            assertTrue(shell.run("ortex:eps").lines().anyMatch(l -> l.startsWith(EXAMPLE_EP)
                    && l.contains(" ACTIVE ") && l.endsWith(id)));

            Files.delete(jar);
            awaitEps(shell, "the example EP draining", eps -> eps.lines().anyMatch(l -> l.startsWith(EXAMPLE_EP)
                    && l.contains(" DRAINING ") && l.endsWith(id)));
            Thread.sleep(2_500);
            assertTrue(shell.run("ortex:eps").contains(" DRAINING "), "still draining past the 1 s limit");
            String runOpen = shell.run("ortex:run " + id + " --shape x=1x8");
            assertTrue(runOpen.contains(EXAMPLE_EP), "the session still runs on the draining EP: " + runOpen);
            String sessions = shell.run("ortex:sessions");
            assertTrue(sessions.contains(id + " "), sessions);

            assertEquals("closed " + id, shell.run("ortex:close " + id).strip());
            awaitEps(shell, "the example EP gone", eps -> !eps.contains(EXAMPLE_EP));
        }
        // the shell's log (conf/logging-shell.properties): the arrival, the drain with its holder, its end
        List<String> log = Files.readAllLines(home.resolve("log/ortex0.log"));
        assertTrue(log.stream().anyMatch(l -> l.contains(" INFO io.ortex.runtime.registry: EP library "
                + "'io.ortex.ep.example' arrived: EP " + EXAMPLE_EP)), String.join("\n", log));
        assertTrue(log.stream().anyMatch(l -> l.contains(" INFO io.ortex.runtime.drain: EP library "
                + "'io.ortex.ep.example' (" + EXAMPLE_EP + ") is being removed: draining 1 session(s) [" + id)),
                String.join("\n", log));
        assertTrue(log.stream().anyMatch(l -> l.contains(" INFO io.ortex.runtime.drain: EP library "
                + "'io.ortex.ep.example' removed after ") && l.endsWith(": drained")), String.join("\n", log));
    }

    @Test
    void replacingTheJarInDeployDrainsTheOldRevisionThenBringsTheNewOneBack(@TempDir Path dir) throws Exception {
        Path home = distribution(dir);
        Path model = dir.resolve("mlp.onnx");
        Files.write(model, MlpModel.build(8, 16, 4, 11));
        try (ShellProcess shell = ShellProcess.start(home)) {
            Path jar = deployExample(home);
            awaitEps(shell, EXAMPLE_EP, eps -> eps.contains(EXAMPLE_EP));
            String id = sessionId(shell.run("ortex:open " + model + " --ep " + EXAMPLE_EP + " --ep "
                    + "CPUExecutionProvider"));

            // a new revision of the jar (one more entry), written beside and moved over the old one
            Path next = home.resolve("deploy/example.jar.tmp");
            try (java.util.zip.ZipInputStream in = new java.util.zip.ZipInputStream(Files.newInputStream(jar));
                 java.util.zip.ZipOutputStream out = new java.util.zip.ZipOutputStream(Files.newOutputStream(next))) {
                for (java.util.zip.ZipEntry e = in.getNextEntry(); e != null; e = in.getNextEntry()) {
                    out.putNextEntry(new java.util.zip.ZipEntry(e.getName()));
                    in.transferTo(out);
                    out.closeEntry();
                }
                out.putNextEntry(new java.util.zip.ZipEntry("META-INF/revision.txt"));
                out.write("2".getBytes(java.nio.charset.StandardCharsets.UTF_8));
                out.closeEntry();
            }
            Files.move(next, jar, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);

            awaitEps(shell, "the old revision draining", eps -> eps.lines().anyMatch(l -> l.startsWith(EXAMPLE_EP)
                    && l.contains(" DRAINING ") && l.endsWith(id)));
            String runOpen = shell.run("ortex:run " + id + " --shape x=1x8");
            assertTrue(runOpen.contains(EXAMPLE_EP), "the session still runs on the old revision: " + runOpen);
            assertEquals("closed " + id, shell.run("ortex:close " + id).strip());
            awaitEps(shell, "the new revision active", eps -> eps.lines().anyMatch(l -> l.startsWith(EXAMPLE_EP)
                    && l.contains(" ACTIVE ")));
            String again = shell.run("ortex:run " + model + " --shape x=1x8 --ep " + EXAMPLE_EP + " --ep "
                    + "CPUExecutionProvider");
            assertTrue(again.contains(EXAMPLE_EP), "a new session runs on the new revision: " + again);
        }
    }

    @Test
    void aGroupCompiledInTheShellOpensSideBySideAndReproducesItsSources(@TempDir Path dir) throws Exception {
        Path home = distribution(dir);
        List<Path> models = EpContextGroupIT.twoModelsSharingALayer(dir.resolve("src"));
        Path out = dir.resolve("out");
        try (ShellProcess shell = ShellProcess.start(home)) {
            deployExample(home);
            awaitEps(shell, EXAMPLE_EP, eps -> eps.lines().anyMatch(l -> l.startsWith(EXAMPLE_EP)
                    && l.contains(" NPU ")));
            String compile = shell.run("ortex:compile " + models.get(0) + " " + models.get(1) + " -o " + out
                    + " --share --policy PREFER_NPU");
            assertTrue(compile.startsWith("compiled 2 models into ") && compile.contains("sharing saved "), compile);
            Path bin = out.resolve("intent_ctx_shared.bin");
            assertTrue(Files.isRegularFile(bin), compile);

            String inspect = shell.run("ortex:inspect " + out.resolve("intent_ctx.onnx"));
            assertTrue(inspect.contains("source " + EXAMPLE_EP + ", embed_mode 0, main context")
                    && inspect.contains("binary 'intent_ctx_shared.bin': " + Files.size(bin) + " bytes, present"),
                    inspect);

            List<String> ids = new java.util.ArrayList<>();
            for (String stem : List.of("intent", "topic")) {
                ids.add(sessionId(shell.run("ortex:open " + out.resolve(stem + "_ctx.onnx")
                        + " --config ep.share_ep_contexts=1 --policy PREFER_NPU")));
            }
            String sessions = shell.run("ortex:sessions");
            assertTrue(sessions.contains(ids.get(0) + " ") && sessions.contains(ids.get(1) + " "), sessions);
            for (int i = 0; i < 2; i++) {
                String stem = i == 0 ? "intent" : "topic";
                String compiled = shell.run("ortex:run " + ids.get(i) + " --shape x=3x32 --output-dir "
                        + dir.resolve("compiled-" + stem));
                assertTrue(compiled.contains(EXAMPLE_EP), compiled);
                String source = shell.run("ortex:run " + models.get(i) + " --shape x=3x32 --ep CPUExecutionProvider"
                        + " --output-dir " + dir.resolve("source-" + stem));
                assertTrue(source.contains("CPUExecutionProvider"), source);
                assertEquals(Files.readAllBytes(dir.resolve("source-" + stem + "/output_0.pb")).length,
                        Files.readAllBytes(dir.resolve("compiled-" + stem + "/output_0.pb")).length);
                assertEquals(null, io.ortex.onnx.TensorComparison.difference(
                        tensor(dir.resolve("source-" + stem + "/output_0.pb")),
                        tensor(dir.resolve("compiled-" + stem + "/output_0.pb")), 1e-5, 1e-6), stem);
            }
            for (String id : ids) {
                assertEquals("closed " + id, shell.run("ortex:close " + id).strip());
            }

            String help = shell.run("help ortex:compile");
            assertTrue(help.contains(io.ortex.shell.internal.Usage.COMPILE_WHAT)
                    && help.contains(io.ortex.shell.internal.Usage.COMPILE), help);
            assertTrue(shell.run("ortex:compile --help").startsWith("usage: ortex compile "
                    + io.ortex.shell.internal.Usage.COMPILE));
            assertTrue(shell.run("help ortex:inspect").contains(io.ortex.shell.internal.Usage.INSPECT_WHAT));
        }
    }

    private static io.ortex.api.Tensor tensor(Path file) throws Exception {
        return io.ortex.onnx.TensorCodec.fromProto(io.ortex.onnx.proto.Onnx.TensorProto.parseFrom(
                Files.readAllBytes(file)));
    }

    @Test
    void exitLeavesThePlainShellWithoutAnError(@TempDir Path dir) throws Exception {
        try (ShellProcess shell = ShellProcess.start(distribution(dir))) {
            assertTrue(shell.run("ortex:eps").contains("CPUExecutionProvider"));
            assertEquals(0, shell.exit(), shell.output());
            assertFalse(shell.output().contains("Exception"), shell.output());
        }
    }

    /**
     * {@code exit} typed into the JLine console on a terminal: {@code script} (util-linux) gives the shell a
     * pseudo-terminal, so Gogo starts its JLine console as it does for a user.
     */
    @Test
    void exitLeavesTheJLineShellWithoutAnInterruptedException(@TempDir Path dir) throws Exception {
        Path home = distribution(dir);
        ProcessBuilder pb = new ProcessBuilder("script", "-qec", home.resolve("bin/ortex").toString(), "/dev/null");
        pb.environment().put("JAVA_HOME", System.getProperty("java.home"));
        pb.environment().put("TERM", "xterm");
        pb.environment().remove("ORTEX_MODULE_PATH");
        pb.environment().put("JAVA_OPTS", ShellProcess.httpPortOption());
        pb.redirectErrorStream(true);
        Process p = pb.start();
        StringBuffer out = new StringBuffer();
        Thread reader = new Thread(() -> {
            byte[] buffer = new byte[4096];
            try (java.io.InputStream in = p.getInputStream()) {
                for (int n = in.read(buffer); n >= 0; n = in.read(buffer)) {
                    out.append(new String(buffer, 0, n, java.nio.charset.StandardCharsets.UTF_8));
                }
            } catch (java.io.IOException e) {
                out.append("(reading failed: ").append(e).append(')');
            }
        });
        reader.setDaemon(true);
        reader.start();
        try (java.io.OutputStream in = p.getOutputStream()) {
            long end = System.currentTimeMillis() + 60_000;
            while (out.indexOf("Welcome to Apache Felix Gogo") < 0) {
                assertTrue(p.isAlive() && System.currentTimeMillis() < end, "no JLine console: " + out);
                Thread.sleep(20);
            }
            in.write("ortex:eps\r".getBytes(java.nio.charset.StandardCharsets.UTF_8));
            in.flush();
            while (out.indexOf("CPUExecutionProvider") < 0) {
                assertTrue(p.isAlive() && System.currentTimeMillis() < end, "ortex:eps did not answer: " + out);
                Thread.sleep(20);
            }
            in.write("exit\r".getBytes(java.nio.charset.StandardCharsets.UTF_8));
            in.flush();
            if (!p.waitFor(30, java.util.concurrent.TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new AssertionError("the JLine shell did not stop after exit: " + out);
            }
        }
        reader.join(5_000);
        String text = out.toString();
        assertEquals(0, p.exitValue(), text);
        assertFalse(text.contains("Exception"), text);
        assertFalse(text.contains("FAILED TO STOP"), text);
        // The console ends its loop after exit and stops the framework itself, as at the end of its input: it reads
        // no further line. (Reading on while its bundle stopped could block for good: see ExitShellCommand.)
        String afterEps = text.substring(text.lastIndexOf("OrtExecutionProvider"));
        assertTrue(afterEps.contains("gosh: stopping framework"), text);
        assertEquals(1, lineReads(afterEps), "the console read another line after exit: " + text);
    }

    /** Counts the lines JLine's reader began: each read turns the terminal's bracketed paste on. */
    private static int lineReads(String terminalOutput) {
        return terminalOutput.split("\u001b\\[\\?2004h", -1).length - 1;
    }

    private static String sessionId(String openOutput) {
        Matcher m = SESSION_ID.matcher(openOutput.strip());
        assertTrue(m.find(), "ortex:open printed no session id: " + openOutput);
        return m.group(1);
    }
}
