package io.ortex.runtime.internal.epcontext;

import io.ortex.api.ErrorCode;
import io.ortex.api.InvalidModelException;
import io.ortex.api.spi.SharedBlob;
import io.ortex.onnx.ModelWriter;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The shared context binary: a file of content-addressed entries (EPContext payloads and the {@link SharedBlob}s
 * they refer to) that several compiled models share, written once by the last session of a sharing group and read
 * entry by entry when those models load. Stateless.
 *
 * <h2>Layout</h2>
 * All numbers little-endian.
 * <ol>
 *   <li>magic {@code i32} {@code 0x4353584F} (the bytes {@code OXSC}), format {@code i32} = {@value #FORMAT};</li>
 *   <li>entry count {@code i32};</li>
 *   <li>the index, one record per entry: the entry's SHA-256 (32 raw bytes; its key is their lowercase hex), its
 *       offset from the start of the file ({@code i64}) and its length ({@code i64});</li>
 *   <li>the entries' bytes, in index order, with no padding.</li>
 * </ol>
 * A key appears once, so identical content is stored once. A reader refuses another magic or format, an index that
 * overruns the file, an entry outside the file, and an entry whose bytes do not hash to its key.
 */
public final class SharedContextFile {
    /** The first four bytes: {@code OXSC}. */
    public static final int MAGIC = 0x4353584F;
    /** The format written and read. */
    public static final int FORMAT = 1;
    private static final int HEADER = 12;
    private static final int INDEX_RECORD = 32 + 8 + 8;

    private SharedContextFile() {
    }

    /**
     * Writes a shared context binary atomically (temporary file, then a move).
     *
     * @param target the file
     * @param entries the entries by key (each key the SHA-256 of its bytes), in writing order
     */
    public static void write(Path target, Map<String, byte[]> entries) {
        ModelWriter.writeAtomically(target, content(entries));
    }

    /**
     * Gives the bytes of a shared context binary, to be written.
     *
     * @param entries the entries by key (each key the SHA-256 of its bytes), in writing order
     * @return the content
     */
    static ModelWriter.Content content(Map<String, byte[]> entries) {
        return out -> {
            ByteBuffer head = ByteBuffer.allocate(HEADER + INDEX_RECORD * entries.size())
                    .order(ByteOrder.LITTLE_ENDIAN);
            head.putInt(MAGIC).putInt(FORMAT).putInt(entries.size());
            long offset = head.capacity();
            for (Map.Entry<String, byte[]> e : entries.entrySet()) {
                head.put(HexFormat.of().parseHex(e.getKey()));
                head.putLong(offset).putLong(e.getValue().length);
                offset += e.getValue().length;
            }
            out.write(head.array());
            for (byte[] b : entries.values()) {
                out.write(b);
            }
        };
    }

    /**
     * Reads some entries of a shared context binary, checking each against its key.
     *
     * @param file the file
     * @param keys the keys wanted
     * @param what the node reading it, for messages
     * @return the entries by key, in the order asked
     * @throws InvalidModelException when the file is missing ({@code NO_SUCH_FILE}), not such a file, lacks a key or
     *     holds an entry that does not match its key
     */
    public static Map<String, byte[]> read(Path file, Iterable<String> keys, String what) {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            long size = ch.size();
            ByteBuffer head = readFully(ch, 0, HEADER, file, what);
            if (head.getInt() != MAGIC) {
                throw bad(what, file, "it is not a shared context binary (bad magic)");
            }
            int format = head.getInt();
            if (format != FORMAT) {
                throw bad(what, file, "format " + format + " cannot be read; this runtime reads format " + FORMAT);
            }
            int count = head.getInt();
            if (count < 0 || HEADER + (long) count * INDEX_RECORD > size) {
                throw bad(what, file, "its index of " + count + " entries overruns the file");
            }
            ByteBuffer index = readFully(ch, HEADER, count * INDEX_RECORD, file, what);
            Map<String, long[]> where = new LinkedHashMap<>();
            byte[] digest = new byte[32];
            for (int i = 0; i < count; i++) {
                index.get(digest);
                long offset = index.getLong();
                long length = index.getLong();
                if (offset < 0 || length < 0 || length > Integer.MAX_VALUE || offset + length > size) {
                    throw bad(what, file, "entry " + i + " lies outside the file");
                }
                where.put(HexFormat.of().formatHex(digest), new long[] {offset, length});
            }
            Map<String, byte[]> out = new LinkedHashMap<>();
            for (String key : keys) {
                long[] at = where.get(key);
                if (at == null) {
                    throw bad(what, file, "it has no entry " + key);
                }
                byte[] bytes = readFully(ch, at[0], (int) at[1], file, what).array();
                if (!SharedBlob.keyOf(bytes).equals(key)) {
                    throw bad(what, file, "entry " + key + " is corrupted (its SHA-256 differs)");
                }
                out.put(key, bytes);
            }
            return out;
        } catch (NoSuchFileException e) {
            throw new InvalidModelException(ErrorCode.NO_SUCH_FILE, what + ": shared context binary " + file
                    + " does not exist", null);
        } catch (IOException e) {
            throw bad(what, file, "it cannot be read: " + e.getMessage());
        }
    }

    private static ByteBuffer readFully(FileChannel ch, long position, int length, Path file, String what)
            throws IOException {
        ByteBuffer b = ByteBuffer.allocate(length).order(ByteOrder.LITTLE_ENDIAN);
        long pos = position;
        while (b.hasRemaining()) {
            int n = ch.read(b, pos);
            if (n < 0) {
                throw bad(what, file, "it is truncated");
            }
            pos += n;
        }
        return b.flip();
    }

    private static InvalidModelException bad(String what, Path file, String why) {
        return new InvalidModelException(what + ": shared context binary " + file + ": " + why);
    }
}
