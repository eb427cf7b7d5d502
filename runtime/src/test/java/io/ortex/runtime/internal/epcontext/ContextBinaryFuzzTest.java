package io.ortex.runtime.internal.epcontext;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.ortex.api.OrtexException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Fuzzes the context-binary reader with arbitrary file content: listing the partitions and reading each (and one
 * that is not listed) must give payloads or Ortex's own exception with a message. Each input is read twice: as it is,
 * and with its checksums made right, so that the fuzzer also reaches what lies behind them (the index entries and
 * the payloads), which random bytes seldom would.
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
        read(bytes);
        read(withChecksums(bytes));
    }

    private static void read(byte[] bytes) throws IOException {
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

    /**
     * Writes the CRC-32C of each payload an index entry points at into that entry, then the CRC-32C of header and
     * index after the index, wherever the declared sizes allow.
     */
    static byte[] withChecksums(byte[] bytes) {
        byte[] b = bytes.clone();
        if (b.length < 20) {
            return b;
        }
        java.nio.ByteBuffer buf = java.nio.ByteBuffer.wrap(b).order(java.nio.ByteOrder.LITTLE_ENDIAN);
        int count = buf.getInt(8);
        int indexBytes = buf.getInt(12);
        if (indexBytes < 0 || 16L + indexBytes + 4 > b.length) {
            return b;
        }
        int at = 16;
        for (int i = 0; i < count && at + 4 <= 16 + indexBytes; i++) {
            int nameBytes = buf.getInt(at);
            if (nameBytes < 0 || (long) at + 4 + nameBytes + 20 > 16 + indexBytes) {
                break;
            }
            int record = at + 4 + nameBytes;
            long offset = buf.getLong(record);
            long length = buf.getLong(record + 8);
            if (offset >= 0 && length >= 0 && offset <= b.length && length <= b.length - offset) {
                java.util.zip.CRC32C crc = new java.util.zip.CRC32C();
                crc.update(b, (int) offset, (int) length);
                buf.putInt(record + 16, (int) crc.getValue());
            }
            at = record + 20;
        }
        java.util.zip.CRC32C crc = new java.util.zip.CRC32C();
        crc.update(b, 0, 16 + indexBytes);
        buf.putInt(16 + indexBytes, (int) crc.getValue());
        return b;
    }
}
