package io.ortex.runtime.internal.epcontext;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.ortex.api.OrtexException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Fuzzes the context-binary reader with arbitrary file content: listing the partitions and reading each (and one
 * that is not listed) must give payloads or Ortex's own exception with a message.
 */
class ContextBinaryFuzzTest {
    private static final Path FILE = file();

    private static Path file() {
        try {
            return Files.createTempFile("ortex-fuzz-", ".bin");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @FuzzTest(maxDuration = "5m")
    void readContextBinary(byte[] bytes) throws IOException {
        Files.write(FILE, bytes);
        try {
            for (String partition : ContextBinaryFile.partitions(FILE, "fuzzed node")) {
                ContextBinaryFile.read(FILE, partition, "fuzzed node");
            }
            ContextBinaryFile.read(FILE, "p0", "fuzzed node");
        } catch (OrtexException e) {
            String message = e.getMessage();
            if (message == null || message.isBlank() || message.chars().anyMatch(c -> c < 0x20)) {
                throw new AssertionError("an exception without a one-line message: " + message, e);
            }
        }
    }
}
