package io.ortex.runtime.internal.epcontext;

import io.ortex.api.ErrorCode;
import io.ortex.api.InvalidModelException;
import io.ortex.api.spi.SharedBlob;
import io.ortex.onnx.ModelWriter;
import java.io.IOException;
import java.lang.ref.SoftReference;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileTime;
import java.util.Collections;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The shared context binary: a file of content-addressed entries (EPContext payloads and the {@link SharedBlob}s
 * they refer to) that several compiled models share, written once by the last session of a sharing group and read
 * once when those models load (a small cache of recently read files). Thread safe.
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
    /** How many files' entries are kept. */
    private static final int CACHED_FILES = 8;
    private static final AtomicLong FILE_READS = new AtomicLong();
    private static final Map<Stamp, Slot> CACHE = new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<Stamp, Slot> eldest) {
            return size() > CACHED_FILES;
        }
    };

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
     * Reads some entries of a shared context binary, checking each against its key. The file is read whole once and
     * its entries kept (softly, for the last {@value #CACHED_FILES} files) while its path, size, modification time
     * and file key stay the same, so that the models of a sharing group, loaded one after another, read their
     * shared binary once. Every file is written to a temporary name and moved into place, so a rewritten binary has
     * another file key and is read again.
     *
     * @param file the file
     * @param keys the keys wanted
     * @param what the node reading it, for messages
     * @return the entries by key, in the order asked; each array is the caller's own
     * @throws InvalidModelException when the file is missing ({@code NO_SUCH_FILE}), not such a file, lacks a key or
     *     holds an entry that does not match its key
     */
    public static Map<String, byte[]> read(Path file, Iterable<String> keys, String what) {
        Map<String, byte[]> all = entries(file, what);
        Map<String, byte[]> out = new LinkedHashMap<>();
        for (String key : keys) {
            byte[] bytes = all.get(key);
            if (bytes == null) {
                throw bad(what, file, "it has no entry " + key);
            }
            out.put(key, bytes.clone());
        }
        return out;
    }

    /**
     * Gets how many times a shared context binary was read from disk in this process, for tests.
     *
     * @return the count
     */
    public static long fileReads() {
        return FILE_READS.get();
    }

    /** What identifies one version of a file: a rewritten file (moved into place) has another file key. */
    private record Stamp(Path path, long size, FileTime modified, Object fileKey) {
    }

    private static Map<String, byte[]> entries(Path file, String what) {
        Stamp stamp;
        try {
            BasicFileAttributes a = Files.readAttributes(file, BasicFileAttributes.class);
            stamp = new Stamp(file.toAbsolutePath().normalize(), a.size(), a.lastModifiedTime(), a.fileKey());
        } catch (NoSuchFileException e) {
            throw missing(what, file);
        } catch (IOException e) {
            throw bad(what, file, "it cannot be read: " + e.getMessage());
        }
        Slot slot;
        synchronized (CACHE) {
            slot = CACHE.computeIfAbsent(stamp, k -> new Slot());
        }
        // sessions loading the same file at once wait for one read; other files are read meanwhile
        synchronized (slot) {
            Map<String, byte[]> cached = slot.entries == null ? null : slot.entries.get();
            if (cached == null || stamp.fileKey() == null) {
                cached = readAll(file, what);
                FILE_READS.incrementAndGet();
                slot.entries = new SoftReference<>(cached);
            }
            return cached;
        }
    }

    /** The entries of one version of a file, kept while memory allows. */
    private static final class Slot {
        private SoftReference<Map<String, byte[]>> entries;
    }

    /** Reads every entry of a file, checking each against its key. */
    private static Map<String, byte[]> readAll(Path file, String what) {
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
            Map<String, byte[]> out = new HashMap<>();
            for (Map.Entry<String, long[]> e : where.entrySet()) {
                byte[] bytes = readFully(ch, e.getValue()[0], (int) e.getValue()[1], file, what).array();
                if (!SharedBlob.keyOf(bytes).equals(e.getKey())) {
                    throw bad(what, file, "entry " + e.getKey() + " is corrupted (its SHA-256 differs)");
                }
                out.put(e.getKey(), bytes);
            }
            return Collections.unmodifiableMap(out);
        } catch (NoSuchFileException e) {
            throw missing(what, file);
        } catch (IOException e) {
            throw bad(what, file, "it cannot be read: " + e.getMessage());
        }
    }

    private static InvalidModelException missing(String what, Path file) {
        return new InvalidModelException(ErrorCode.NO_SUCH_FILE, what + ": shared context binary " + file
                + " does not exist", null);
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
