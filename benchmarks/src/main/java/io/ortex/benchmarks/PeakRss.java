package io.ortex.benchmarks;

import ai.onnxruntime.OnnxTensor;
import ai.onnxruntime.OrtEnvironment;
import ai.onnxruntime.OrtException;
import ai.onnxruntime.OrtSession;
import io.ortex.api.Environment;
import io.ortex.api.Session;
import io.ortex.api.SessionOptions;
import io.ortex.api.Tensor;
import io.ortex.ep.cpu.CpuEpFactory;
import io.ortex.runtime.internal.RuntimeEnvironment;
import io.ortex.runtime.internal.discovery.HardwareDiscovery;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * Opens a session for a real model in this (fresh) JVM, runs it ten times on 2 threads and prints the process's peak
 * resident memory in KB ({@code VmHWM} of {@code /proc/self/status}); for Ortex it prints first the heap the session
 * holds once created (after a full collection), in KB. Started by {@link PerformanceReport}.
 *
 * <p>Ortex runs as an application that depends on the runtime and the CPU EP (the class-path setup of the README):
 * its environment gets the CPU EP alone, so that ONNX Runtime's EP, which this benchmark's class path also holds for
 * the comparison, does not load ONNX Runtime's native library into the process measured.
 *
 * <p>Usage: {@code PeakRss MODEL [ortex|onnxruntime]}.
 */
public final class PeakRss {
    private PeakRss() {
    }

    /**
     * Runs the model and prints the figures.
     *
     * @param args the model's name in the model cache, and which runtime runs it (default Ortex)
     * @throws IOException when /proc cannot be read
     * @throws OrtException when ONNX Runtime fails
     */
    public static void main(String[] args) throws IOException, OrtException {
        Map<String, Tensor> feeds = RealModels.inputs(args[0]);
        if (args.length > 1 && args[1].equals("onnxruntime")) {
            OrtEnvironment env = OrtEnvironment.getEnvironment();
            Map<String, OnnxTensor> ortFeeds = RealModels.toOrt(feeds);
            try (OrtSession.SessionOptions options = new OrtSession.SessionOptions()) {
                options.setIntraOpNumThreads(2);
                try (OrtSession s = env.createSession(RealModels.file(args[0]).toString(), options)) {
                    for (int i = 0; i < 10; i++) {
                        s.run(ortFeeds).close();
                    }
                }
            }
        } else {
            try (Environment env = cpuOnly()) {
                long before = usedAfterGc();
                try (Session s = env.createSession(RealModels.file(args[0]),
                        new SessionOptions().intraOpThreads(2))) {
                    System.out.println((usedAfterGc() - before) / 1024);
                    for (int i = 0; i < 10; i++) {
                        s.run(feeds);
                    }
                }
            }
        }
        for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
            if (line.startsWith("VmHWM:")) {
                System.out.println(line.replaceAll("[^0-9]", ""));
            }
        }
    }

    private static Environment cpuOnly() {
        RuntimeEnvironment env = new RuntimeEnvironment(Map.of(), new HardwareDiscovery(Map.of()).discover());
        env.registerFactories(CpuEpFactory.NAME, List.of(new CpuEpFactory()), false);
        return env;
    }

    private static long usedAfterGc() {
        Runtime rt = Runtime.getRuntime();
        System.gc();
        return rt.totalMemory() - rt.freeMemory();
    }
}
