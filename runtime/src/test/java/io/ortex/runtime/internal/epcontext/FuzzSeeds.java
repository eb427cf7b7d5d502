package io.ortex.runtime.internal.epcontext;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Writes the seed inputs of {@link ContextBinaryFuzzTest} into {@code src/test/resources}: context binaries of one
 * and several partitions (the inputs of {@link EpContextFuzzTest}, which reads a {@code FuzzedDataProvider}, come
 * from fuzzing runs). The files are committed; run this again only to change the seeds:
 * {@code java -cp <test class path> io.ortex.runtime.internal.epcontext.FuzzSeeds runtime/src/test/resources}.
 */
final class FuzzSeeds {
    private FuzzSeeds() {
    }

    /**
     * Writes the seeds.
     *
     * @param args the module's test resources folder
     * @throws IOException when a file cannot be written
     */
    public static void main(String[] args) throws IOException {
        Path folder = Files.createDirectories(Path.of(args[0])
                .resolve("io/ortex/runtime/internal/epcontext/ContextBinaryFuzzTestInputs/readContextBinary"));
        ContextBinaryFile.write(folder.resolve("seed-one"), Map.of("p0", new byte[] {1, 2, 3, 4}));
        Map<String, byte[]> several = new LinkedHashMap<>();
        several.put("p0", new byte[0]);
        several.put("ExampleExecutionProvider_1_0", new byte[] {9, 8, 7});
        several.put("p2", "payload".getBytes(java.nio.charset.StandardCharsets.UTF_8));
        ContextBinaryFile.write(folder.resolve("seed-several"), several);
        ContextBinaryFile.write(folder.resolve("seed-empty"), Map.of());
    }
}
