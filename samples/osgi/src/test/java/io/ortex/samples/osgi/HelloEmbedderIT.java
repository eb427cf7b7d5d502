package io.ortex.samples.osgi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;
import org.osgi.framework.Constants;
import org.osgi.framework.launch.Framework;
import org.osgi.framework.launch.FrameworkFactory;

/**
 * Starts Felix with Declarative Services, the Ortex runtime and this sample's bundle, then installs the CPU EP
 * bundle and waits for the sample to run the model on it. SLF4J, the logging API of the Ortex bundles, and its provider
 * are on the class path, exported by the system bundle.
 */
class HelloEmbedderIT {
    @Test
    void embedsWhenTheCpuEpArrives() throws Exception {
        ByteArrayOutputStream output = new ByteArrayOutputStream();
        PrintStream console = System.out;
        System.setOut(new PrintStream(new TeeStream(console, output), true));
        Framework framework = ServiceLoader.load(FrameworkFactory.class).iterator().next().newFramework(Map.of(
                Constants.FRAMEWORK_STORAGE, "target/felix-cache",
                Constants.FRAMEWORK_STORAGE_CLEAN, Constants.FRAMEWORK_STORAGE_CLEAN_ONFIRSTINIT,
                "sample.model", System.getProperty("sample.model"),
                // the Ortex bundles log through SLF4J: the system bundle exports it from the class path, where its
                // provider is (a Service Loader Mediator in the framework would do too)
                Constants.FRAMEWORK_SYSTEMPACKAGES_EXTRA, slf4jPackages(System.getProperty("slf4j.version"))));
        framework.start();
        try {
            BundleContext context = framework.getBundleContext();
            List<Path> jars;
            try (Stream<Path> files = Files.list(Path.of("target/bundles"))) {
                jars = files.sorted().toList();
            }
            Path cpuEp = jars.stream().filter(p -> p.getFileName().toString().startsWith("io.ortex.ep.cpu-"))
                    .findFirst().orElseThrow();
            List<Bundle> bundles = new ArrayList<>();
            for (Path jar : jars) {
                if (!jar.equals(cpuEp)) {
                    bundles.add(context.installBundle(jar.toUri().toString()));
                }
            }
            bundles.add(context.installBundle(new File(System.getProperty("sample.bundle")).toURI().toString()));
            for (Bundle bundle : bundles) {
                bundle.start();
            }
            awaitLine(output, "HelloEmbedder: waiting for an EP with a CPU device");
            assertFalse(output.toString().contains("HelloEmbedder: CPUExecutionProvider"), "nothing ran before the EP came");

            context.installBundle(cpuEp.toUri().toString()).start();
            String line = awaitLine(output, "HelloEmbedder: CPUExecutionProvider ran all-minilm-l6-v2.onnx");
            String[] values = line.substring(line.indexOf('[') + 1, line.indexOf(']')).split(", ");
            float[] onnxRuntime = {0.17644446f, 0.0393658f, 0.07790196f};   // ONNX Runtime 1.29, same tokens
            for (int i = 0; i < onnxRuntime.length; i++) {
                assertEquals(onnxRuntime[i], Float.parseFloat(values[i]), 1e-4f, line);
            }
        } finally {
            framework.stop();
            framework.waitForStop(10_000);
            System.setOut(console);
        }
    }

    private static String slf4jPackages(String version) {
        return String.join(",", Stream.of("org.slf4j", "org.slf4j.event", "org.slf4j.helpers", "org.slf4j.spi")
                .map(p -> p + ";version=" + version).toList());
    }

    private static String awaitLine(ByteArrayOutputStream output, String start) throws InterruptedException {
        long deadline = System.nanoTime() + 60_000_000_000L;
        while (System.nanoTime() < deadline) {
            for (String line : output.toString().split("\n")) {
                if (line.startsWith(start)) {
                    return line;
                }
            }
            Thread.sleep(50);
        }
        throw new AssertionError("no line starting with '" + start + "' within 60 s; output:\n" + output);
    }

    /** Writes to the console and keeps a copy. */
    private static final class TeeStream extends java.io.OutputStream {
        private final PrintStream console;
        private final ByteArrayOutputStream copy;

        TeeStream(PrintStream console, ByteArrayOutputStream copy) {
            this.console = console;
            this.copy = copy;
        }

        @Override
        public synchronized void write(int b) {
            console.write(b);
            copy.write(b);
        }

        @Override
        public synchronized void write(byte[] b, int off, int len) {
            console.write(b, off, len);
            copy.write(b, off, len);
        }
    }
}
