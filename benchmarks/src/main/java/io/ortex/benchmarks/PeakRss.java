package io.ortex.benchmarks;

import io.ortex.api.Environment;
import io.ortex.api.Session;
import io.ortex.api.SessionOptions;
import io.ortex.api.Tensor;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/**
 * Opens a session for a real model in this (fresh) JVM, runs it ten times and prints the process's peak resident
 * memory in KB ({@code VmHWM} of {@code /proc/self/status}). Started by {@link PerformanceReport}.
 */
public final class PeakRss {
    private PeakRss() {
    }

    /**
     * Runs the model and prints the peak.
     *
     * @param args the model's name in the model cache
     * @throws IOException when /proc cannot be read
     */
    public static void main(String[] args) throws IOException {
        Map<String, Tensor> feeds = RealModels.inputs(args[0]);
        try (Environment env = Environment.create();
             Session s = env.createSession(RealModels.file(args[0]), new SessionOptions().intraOpThreads(2))) {
            for (int i = 0; i < 10; i++) {
                s.run(feeds);
            }
        }
        for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
            if (line.startsWith("VmHWM:")) {
                System.out.println(line.replaceAll("[^0-9]", ""));
            }
        }
    }
}
