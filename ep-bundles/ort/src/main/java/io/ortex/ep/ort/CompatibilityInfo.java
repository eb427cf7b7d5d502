package io.ortex.ep.ort;

import io.ortex.api.CompiledModelCompatibility;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The compatibility string of the partitions this EP compiles, stored in compiled models under
 * {@code ep_compatibility_info.<EP name>}, and the verdict on one read back. ONNX Runtime's optimized models are
 * specific to its version (newer operators and fusions) and to the CPU they were optimized on: at the highest level
 * it lays out convolution weights in blocks sized to the widest vector unit (NCHWc), so a model optimized with
 * AVX-512 is not fit for a CPU without it, and the other way round. The string is
 * {@code <EP name>;ort=<version>;format=<ort|onnx>;arch=<os.arch>;cpu=<features>}, the features being those of
 * {@link #RELEVANT} the CPU has. Verdicts, following ONNX Runtime's example EP: another EP's string, a malformed one,
 * another architecture or different CPU features: {@code EP_UNSUPPORTED}; another ONNX Runtime version:
 * {@code EP_SUPPORTED_PREFER_RECOMPILATION}; otherwise {@code EP_SUPPORTED_OPTIMAL}. Immutable.
 *
 * @param ortVersion the ONNX Runtime version
 * @param format the payload format
 * @param arch the CPU architecture ({@code os.arch})
 * @param cpuFeatures the relevant CPU features, sorted
 */
record CompatibilityInfo(String ortVersion, String format, String arch, Set<String> cpuFeatures) {
    /** The CPU features that change how ONNX Runtime optimizes and runs a model (Linux {@code /proc/cpuinfo} flags). */
    static final List<String> RELEVANT = List.of("sse4_1", "sse4_2", "avx", "avx2", "fma", "f16c", "avx512f",
            "avx512bw", "avx512vl", "avx512dq", "avx512_vnni", "avx_vnni", "avx512_bf16", "avx512_fp16", "amx_tile",
            "amx_bf16", "amx_int8", "asimd", "asimddp", "sve", "i8mm", "bf16");

    /**
     * Copies the feature set into a sorted unmodifiable one.
     *
     * @param ortVersion the ONNX Runtime version
     * @param format the payload format
     * @param arch the CPU architecture
     * @param cpuFeatures the relevant CPU features
     */
    CompatibilityInfo {
        cpuFeatures = Set.copyOf(new TreeSet<>(cpuFeatures));
    }

    /**
     * Describes this machine.
     *
     * @param ortVersion the ONNX Runtime version
     * @param format the payload format
     * @return the description
     */
    static CompatibilityInfo ofThisMachine(String ortVersion, String format) {
        return new CompatibilityInfo(ortVersion, format, System.getProperty("os.arch", ""), machineCpuFeatures());
    }

    /** The relevant features in {@code /proc/cpuinfo}'s first {@code flags} (x86) or {@code Features} (ARM) line. */
    static Set<String> machineCpuFeatures() {
        Set<String> found = new TreeSet<>();
        try {
            for (String line : Files.readAllLines(Path.of("/proc/cpuinfo"))) {
                String l = line.toLowerCase(Locale.ROOT);
                if (l.startsWith("flags") || l.startsWith("features")) {
                    int colon = l.indexOf(':');
                    Set<String> flags = new TreeSet<>(Arrays.asList(l.substring(colon + 1).trim().split("\\s+")));
                    for (String f : RELEVANT) {
                        if (flags.contains(f)) {
                            found.add(f);
                        }
                    }
                    break;
                }
            }
        } catch (IOException | RuntimeException e) {
            // not Linux, or not readable: the string then carries no features and only a matching machine agrees
        }
        return found;
    }

    /**
     * Writes the compatibility string.
     *
     * @param epName the EP name
     * @return the string
     */
    String encode(String epName) {
        return epName + ";ort=" + ortVersion + ";format=" + format + ";arch=" + arch + ";cpu="
                + String.join(",", new TreeSet<>(cpuFeatures));
    }

    /**
     * Reads a compatibility string.
     *
     * @param epName the EP name it must start with
     * @param text the string
     * @return the description, or {@code null} when the string is another EP's or malformed
     */
    static CompatibilityInfo decode(String epName, String text) {
        if (text == null) {
            return null;
        }
        String[] parts = text.split(";", -1);
        if (parts.length < 2 || !parts[0].equals(epName)) {
            return null;
        }
        Map<String, String> fields = new LinkedHashMap<>();
        for (int i = 1; i < parts.length; i++) {
            int eq = parts[i].indexOf('=');
            if (eq <= 0) {
                return null;
            }
            fields.put(parts[i].substring(0, eq), parts[i].substring(eq + 1));
        }
        String ort = fields.get("ort");
        String format = fields.get("format");
        String cpu = fields.get("cpu");
        if (ort == null || format == null || cpu == null || !fields.containsKey("arch")) {
            return null;
        }
        Set<String> features = cpu.isEmpty() ? Set.of() : new TreeSet<>(Arrays.asList(cpu.split(",")));
        return new CompatibilityInfo(ort, format, fields.get("arch"), features);
    }

    /**
     * Judges a compiled model's string on this machine.
     *
     * @param here this machine, with the running ONNX Runtime version
     * @param epName the EP name
     * @param stored the string stored in the model
     * @return the verdict
     */
    static CompiledModelCompatibility judge(CompatibilityInfo here, String epName, String stored) {
        CompatibilityInfo then = decode(epName, stored);
        if (then == null || !then.arch.equals(here.arch) || !then.cpuFeatures.equals(here.cpuFeatures)
                || !(then.format.equals("ort") || then.format.equals("onnx"))) {
            return CompiledModelCompatibility.UNSUPPORTED;
        }
        if (!then.ortVersion.equals(here.ortVersion)) {
            return CompiledModelCompatibility.SUPPORTED_PREFER_RECOMPILATION;
        }
        return CompiledModelCompatibility.SUPPORTED_OPTIMAL;
    }
}
