package io.ortex.runtime.internal.epcontext;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ortex.api.ErrorCode;
import io.ortex.api.InvalidModelException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The context binary's layout, round trip and refusals of damaged files. */
class ContextBinaryFileTest {
    static final String NODE = "EPContext node 'n'";

    @TempDir
    Path dir;

    Path write(Map<String, byte[]> payloads) {
        Path file = dir.resolve("m_EP.bin");
        ContextBinaryFile.write(file, payloads);
        return file;
    }

    static Map<String, byte[]> three() {
        Map<String, byte[]> m = new LinkedHashMap<>();
        m.put("a_part_0", new byte[] {1, 2, 3});
        m.put("a_part_1", new byte[0]);
        m.put("a_pärt_2", new byte[] {9, 8, 7, 6, 5});
        return m;
    }

    @Test
    void roundTripFollowsTheDocumentedLayout() throws IOException {
        Path file = write(three());
        assertEquals(List.of("a_part_0", "a_part_1", "a_pärt_2"), List.copyOf(ContextBinaryFile.partitions(file,
                NODE)));
        for (Map.Entry<String, byte[]> e : three().entrySet()) {
            assertArrayEquals(e.getValue(), ContextBinaryFile.read(file, e.getKey(), NODE), e.getKey());
        }
        ByteBuffer b = ByteBuffer.wrap(Files.readAllBytes(file)).order(ByteOrder.LITTLE_ENDIAN);
        assertEquals("OXCB", new String(Files.readAllBytes(file), 0, 4, StandardCharsets.US_ASCII));
        assertEquals(ContextBinaryFile.FORMAT, b.getInt(4));
        assertEquals(3, b.getInt(8));
        int indexBytes = b.getInt(12);
        int names = "a_part_0".length() + "a_part_1".length() + "a_pärt_2".getBytes(StandardCharsets.UTF_8).length;
        assertEquals(3 * 24 + names, indexBytes);
        assertEquals(8, b.getInt(16), "first name's length");
        long firstOffset = b.getLong(16 + 4 + 8);
        assertEquals(16 + indexBytes + 4, firstOffset, "payloads follow the index and its CRC");
        assertEquals(3, b.getLong(16 + 4 + 8 + 8));
        assertEquals(firstOffset + 3 + 0 + 5, Files.size(file), "no padding");
        assertEquals(1, b.get((int) firstOffset));
    }

    @Test
    void aMissingPartitionIsNamed() {
        Path file = write(three());
        InvalidModelException e = assertThrows(InvalidModelException.class,
                () -> ContextBinaryFile.read(file, "other", NODE));
        assertTrue(e.getMessage().contains(NODE) && e.getMessage().contains("has no partition 'other'")
                && e.getMessage().contains(file.toString()), e.getMessage());
    }

    @Test
    void aCorruptedIndexIsRefused() throws IOException {
        Path file = write(three());
        byte[] bytes = Files.readAllBytes(file);
        bytes[16 + 4 + 3] ^= 0x20; // a letter of the first partition name
        Files.write(file, bytes);
        InvalidModelException e = assertThrows(InvalidModelException.class,
                () -> ContextBinaryFile.read(file, "a_part_1", NODE));
        assertTrue(e.getMessage().contains("index is corrupted") && e.getMessage().contains(NODE), e.getMessage());
    }

    @Test
    void anIndexOverrunningTheFileIsRefused() throws IOException {
        Path file = write(three());
        byte[] bytes = Files.readAllBytes(file);
        ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN).putInt(12, 1 << 20);
        Files.write(file, bytes);
        InvalidModelException e = assertThrows(InvalidModelException.class,
                () -> ContextBinaryFile.partitions(file, NODE));
        assertTrue(e.getMessage().contains("overruns the file"), e.getMessage());
    }

    @Test
    void aCorruptedPayloadIsRefusedAndOthersStillRead() throws IOException {
        Path file = write(three());
        byte[] bytes = Files.readAllBytes(file);
        bytes[bytes.length - 1] ^= 1;
        Files.write(file, bytes);
        InvalidModelException e = assertThrows(InvalidModelException.class,
                () -> ContextBinaryFile.read(file, "a_pärt_2", NODE));
        assertTrue(e.getMessage().contains("payload of partition 'a_pärt_2' is corrupted"), e.getMessage());
        assertArrayEquals(new byte[] {1, 2, 3}, ContextBinaryFile.read(file, "a_part_0", NODE));
    }

    @Test
    void otherFilesAreRefused() throws IOException {
        Path file = write(three());
        byte[] bytes = Files.readAllBytes(file);
        bytes[0] = 'X';
        Files.write(file, bytes);
        assertTrue(assertThrows(InvalidModelException.class, () -> ContextBinaryFile.partitions(file, NODE))
                .getMessage().contains("bad magic"));
        Files.write(file, new byte[] {1, 2});
        assertTrue(assertThrows(InvalidModelException.class, () -> ContextBinaryFile.partitions(file, NODE))
                .getMessage().contains("too short"));
        Path gone = dir.resolve("gone.bin");
        assertEquals(ErrorCode.NO_SUCH_FILE, assertThrows(InvalidModelException.class,
                () -> ContextBinaryFile.read(gone, "a", NODE)).code());
    }

    @Test
    void writingReplacesAtomicallyAndLeavesNoTemporaryFile() throws IOException {
        Path file = write(three());
        write(Map.of("only", new byte[] {4}));
        assertEquals(List.of("only"), List.copyOf(ContextBinaryFile.partitions(file, NODE)));
        try (var s = Files.list(dir)) {
            assertEquals(List.of(file), s.toList());
        }
        assertThrows(IllegalArgumentException.class, () -> write(Map.of("", new byte[1])));
    }
}
