package io.ortex.benchmarks.serving;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** What the report says about the machine, and the server's batch totals read from {@code /metrics}. */
final class Machine {
    private Machine() {
    }

    /**
     * Reads the load average.
     *
     * @return {@code /proc/loadavg}'s 1, 5 and 15 minute figures, or "unknown"
     */
    static String loadAverage() {
        try {
            String[] f = Files.readString(Path.of("/proc/loadavg")).trim().split("\\s+");
            return f[0] + " " + f[1] + " " + f[2];
        } catch (IOException | RuntimeException e) {
            return "unknown";
        }
    }

    /**
     * Describes the processor.
     *
     * @return the model name of {@code /proc/cpuinfo} and the processors this JVM may use
     */
    static String cpu() {
        String name = "unknown processor";
        try {
            name = Files.readAllLines(Path.of("/proc/cpuinfo")).stream().filter(l -> l.startsWith("model name"))
                    .map(l -> l.substring(l.indexOf(':') + 1).trim()).findFirst().orElse(name);
        } catch (IOException e) {
            // not Linux: the name stays unknown
        }
        return name + ", " + Runtime.getRuntime().availableProcessors() + " processors available";
    }

    /**
     * Describes the memory.
     *
     * @return {@code MemTotal} of {@code /proc/meminfo}, or "unknown"
     */
    static String memory() {
        try {
            return Files.readAllLines(Path.of("/proc/meminfo")).stream().filter(l -> l.startsWith("MemTotal"))
                    .map(l -> l.substring(l.indexOf(':') + 1).trim()).findFirst().orElse("unknown");
        } catch (IOException e) {
            return "unknown";
        }
    }

    /**
     * Sums a model's batch size histogram over its versions.
     *
     * @param metrics the text of {@code /metrics}
     * @param model the model's name
     * @return the {@code _sum} and the {@code _count} of {@code ortex_inference_batch_size}
     */
    static double[] batchTotals(String metrics, String model) {
        double[] totals = new double[2];
        String label = "{model=\"" + model + "\",";
        for (String line : metrics.lines().toList()) {
            int at = line.lastIndexOf(' ');
            if (at < 0) {
                continue;
            }
            if (line.startsWith("ortex_inference_batch_size_sum" + label)) {
                totals[0] += Double.parseDouble(line.substring(at + 1));
            } else if (line.startsWith("ortex_inference_batch_size_count" + label)) {
                totals[1] += Double.parseDouble(line.substring(at + 1));
            }
        }
        return totals;
    }
}
