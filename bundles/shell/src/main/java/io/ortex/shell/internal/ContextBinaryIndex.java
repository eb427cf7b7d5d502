package io.ortex.shell.internal;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The index of a context binary that a compiled model names, read for reporting (the runtime reads the payloads):
 * which of the two layouts it is, {@code <model>_<EP>.bin} (magic {@code OXCB}) or a shared context binary (magic
 * {@code OXSC}), how many entries it holds and, for a shared one, each entry's length by key. The layouts are those
 * of the runtime's {@code io.ortex.runtime.internal.epcontext} package. Stateless.
 *
 * @param kind {@code context binary}, {@code shared context binary}, or why the file is neither
 * @param entries the number of entries, or -1 when the file is not readable as either layout
 * @param lengths for a shared context binary, each entry's length by key (the SHA-256 of its bytes, in hex); else
 *     empty
 */
record ContextBinaryIndex(String kind, int entries, Map<String, Long> lengths) {
    private static final int CONTEXT_MAGIC = 0x4243584F;
    private static final int SHARED_MAGIC = 0x4353584F;
    private static final int SHARED_RECORD = 32 + 8 + 8;

    ContextBinaryIndex {
        lengths = Map.copyOf(lengths);
    }

    /**
     * Reads a binary's index.
     *
     * @param file the file, which exists
     * @return the index; a file of neither layout, or one whose index overruns it, gives a {@code kind} that says so
     * @throws IOException when the file cannot be read
     */
    static ContextBinaryIndex read(Path file) throws IOException {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            long size = ch.size();
            if (size < 12) {
                return damaged("too short for a context binary (" + size + " bytes)");
            }
            ByteBuffer head = read(ch, 0, 12);
            int magic = head.getInt();
            head.getInt();
            int count = head.getInt();
            if (magic == CONTEXT_MAGIC) {
                return count < 0 ? damaged("context binary with a negative entry count")
                        : new ContextBinaryIndex("context binary", count, Map.of());
            }
            if (magic != SHARED_MAGIC) {
                return damaged("not a context binary (unknown magic)");
            }
            if (count < 0 || 12 + (long) count * SHARED_RECORD > size) {
                return damaged("shared context binary whose index of " + count + " entries overruns the file");
            }
            ByteBuffer index = read(ch, 12, count * SHARED_RECORD);
            Map<String, Long> lengths = new LinkedHashMap<>();
            byte[] digest = new byte[32];
            for (int i = 0; i < count; i++) {
                index.get(digest);
                index.getLong();
                lengths.put(HexFormat.of().formatHex(digest), index.getLong());
            }
            return new ContextBinaryIndex("shared context binary", count, lengths);
        }
    }

    private static ContextBinaryIndex damaged(String why) {
        return new ContextBinaryIndex(why, -1, Map.of());
    }

    private static ByteBuffer read(FileChannel ch, long position, int length) throws IOException {
        ByteBuffer b = ByteBuffer.allocate(length).order(ByteOrder.LITTLE_ENDIAN);
        long pos = position;
        while (b.hasRemaining()) {
            int n = ch.read(b, pos);
            if (n < 0) {
                throw new IOException("truncated");
            }
            pos += n;
        }
        return b.flip();
    }
}
