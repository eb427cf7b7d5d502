package io.ortex.runtime.internal.epcontext;

import io.ortex.api.ErrorCode;
import io.ortex.api.InvalidModelException;
import io.ortex.api.Names;
import io.ortex.onnx.ModelWriter;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.zip.CRC32C;

/**
 * The context binary of one EP in a compiled model written with {@code embed_mode=0}: the payloads of all the
 * partitions that EP compiled, found by partition name. The EP's main EPContext node ({@code main_context=1}) names
 * the file in {@code ep_cache_context}; its other nodes ({@code main_context=0}) read their payload from the main
 * node's file. Stateless.
 *
 * <h2>Layout</h2>
 * All numbers little-endian.
 * <ol>
 *   <li>magic {@code i32} {@code 0x4243584F} (the bytes {@code OXCB}), format {@code i32} = {@value #FORMAT};</li>
 *   <li>entry count {@code i32}, then the index's length in bytes {@code i32};</li>
 *   <li>the index, one record per partition: the partition name's UTF-8 length ({@code i32}, 1 to
 *       {@value #MAX_NAME_BYTES}) and bytes, the payload's offset from the start of the file ({@code i64}), its length
 *       ({@code i64}) and its CRC-32C ({@code i32});</li>
 *   <li>the CRC-32C ({@code i32}) of everything before it (header and index);</li>
 *   <li>the payloads, in index order, with no padding.</li>
 * </ol>
 * A partition name appears once. A reader refuses another magic or format, an index that overruns the file or whose
 * CRC differs, a duplicate name, an entry outside the file, a missing partition and a payload whose CRC differs.
 */
public final class ContextBinaryFile {
    /** The first four bytes: {@code OXCB}. */
    public static final int MAGIC = 0x4243584F;
    /** The format written and read. */
    public static final int FORMAT = 1;
    /** The longest partition name, in UTF-8 bytes. */
    public static final int MAX_NAME_BYTES = 4096;
    private static final int HEADER = 16;
    private static final int RECORD_FIXED = 4 + 8 + 8 + 4;

    private ContextBinaryFile() {
    }

    /**
     * Writes a context binary atomically (temporary file, then a move).
     *
     * @param target the file
     * @param payloads the payloads by partition name, in writing order
     * @throws IllegalArgumentException when a partition name is empty or too long
     */
    public static void write(Path target, Map<String, byte[]> payloads) {
        ModelWriter.writeAtomically(target, content(payloads));
    }

    /**
     * Gives the bytes of a context binary, to be written.
     *
     * @param payloads the payloads by partition name, in writing order
     * @return the content
     * @throws IllegalArgumentException when a partition name is empty or too long
     */
    static ModelWriter.Content content(Map<String, byte[]> payloads) {
        byte[][] names = new byte[payloads.size()][];
        int indexBytes = 0;
        int i = 0;
        for (String name : payloads.keySet()) {
            names[i] = name.getBytes(StandardCharsets.UTF_8);
            if (names[i].length == 0 || names[i].length > MAX_NAME_BYTES) {
                throw new IllegalArgumentException("partition name " + Names.quote(name) + " must have 1 to "
                        + MAX_NAME_BYTES
                        + " UTF-8 bytes");
            }
            indexBytes += RECORD_FIXED + names[i++].length;
        }
        ByteBuffer head = ByteBuffer.allocate(HEADER + indexBytes + 4).order(ByteOrder.LITTLE_ENDIAN);
        head.putInt(MAGIC).putInt(FORMAT).putInt(payloads.size()).putInt(indexBytes);
        long offset = head.capacity();
        i = 0;
        for (byte[] data : payloads.values()) {
            head.putInt(names[i].length).put(names[i++]).putLong(offset).putLong(data.length).putInt(crc(data));
            offset += data.length;
        }
        CRC32C c = new CRC32C();
        c.update(head.array(), 0, head.position());
        head.putInt((int) c.getValue());
        return out -> {
            out.write(head.array());
            for (byte[] data : payloads.values()) {
                out.write(data);
            }
        };
    }

    /**
     * Reads the partition names a context binary holds, checking its header and index.
     *
     * @param file the file
     * @param what the node reading it, for messages
     * @return the partition names, in index order
     * @throws InvalidModelException when the file is missing ({@code NO_SUCH_FILE}), not a context binary, or its
     *     index is corrupted; the message names {@code what} and the file
     */
    public static Set<String> partitions(Path file, String what) {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            return Collections.unmodifiableSet(index(ch, file, what).keySet());
        } catch (NoSuchFileException e) {
            throw missing(what, file);
        } catch (IOException e) {
            throw bad(what, file, "it cannot be read: " + e.getMessage());
        }
    }

    /**
     * Reads one partition's payload from a context binary, checking its CRC.
     *
     * @param file the file
     * @param partition the partition name
     * @param what the node reading it, for messages
     * @return the payload
     * @throws InvalidModelException when the file is missing ({@code NO_SUCH_FILE}), not a context binary, its index
     *     is corrupted, it has no such partition, or the payload is corrupted; the message names {@code what}, the
     *     file and the partition
     */
    public static byte[] read(Path file, String partition, String what) {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            long[] at = index(ch, file, what).get(partition);
            if (at == null) {
                throw new InvalidModelException(what + ": context binary " + file + " has no partition "
                        + Names.quote(partition));
            }
            ByteBuffer b = readFully(ch, at[0], (int) at[1], file, what);
            byte[] data = new byte[(int) at[1]];
            b.get(data);
            if (crc(data) != (int) at[2]) {
                throw bad(what, file, "the payload of partition " + Names.quote(partition)
                        + " is corrupted (its CRC-32C"
                        + " differs)");
            }
            return data;
        } catch (NoSuchFileException e) {
            throw missing(what, file);
        } catch (IOException e) {
            throw bad(what, file, "it cannot be read: " + e.getMessage());
        }
    }

    private static Map<String, long[]> index(FileChannel ch, Path file, String what) throws IOException {
        long size = ch.size();
        if (size < HEADER + 4) {
            throw bad(what, file, "it is too short to be a context binary (" + size + " bytes)");
        }
        ByteBuffer head = readFully(ch, 0, HEADER, file, what);
        if (head.getInt() != MAGIC) {
            throw bad(what, file, "it is not a context binary (bad magic)");
        }
        int format = head.getInt();
        if (format != FORMAT) {
            throw bad(what, file, "format " + format + " cannot be read; this runtime reads format " + FORMAT);
        }
        int count = head.getInt();
        int indexBytes = head.getInt();
        if (count < 0 || indexBytes < 0 || (long) count * RECORD_FIXED > indexBytes
                || HEADER + (long) indexBytes + 4 > size) {
            throw bad(what, file, "its index (" + count + " entries, " + indexBytes + " bytes) overruns the file");
        }
        ByteBuffer index = readFully(ch, HEADER, indexBytes + 4, file, what);
        CRC32C c = new CRC32C();
        c.update(head.array(), 0, HEADER);
        c.update(index.array(), 0, indexBytes);
        if ((int) c.getValue() != index.getInt(indexBytes)) {
            throw bad(what, file, "its index is corrupted (its CRC-32C differs)");
        }
        Map<String, long[]> out = new LinkedHashMap<>();
        for (int i = 0; i < count; i++) {
            int nameBytes = index.position() + 4 <= indexBytes ? index.getInt() : -1;
            if (nameBytes < 1 || nameBytes > MAX_NAME_BYTES || index.position() + nameBytes + 20 > indexBytes) {
                throw bad(what, file, "index entry " + i + " is malformed");
            }
            byte[] name = new byte[nameBytes];
            index.get(name);
            long offset = index.getLong();
            long length = index.getLong();
            long crc = index.getInt();
            if (offset < HEADER + indexBytes + 4 || length < 0 || length > Integer.MAX_VALUE
                    || offset + length > size) {
                throw bad(what, file, "index entry " + i + " lies outside the file");
            }
            String partition = new String(name, StandardCharsets.UTF_8);
            if (out.put(partition, new long[] {offset, length, crc}) != null) {
                throw bad(what, file, "partition " + Names.quote(partition) + " appears twice in its index");
            }
        }
        if (index.position() != indexBytes) {
            throw bad(what, file, "its index has " + (indexBytes - index.position()) + " bytes after its last entry");
        }
        return out;
    }

    private static int crc(byte[] data) {
        CRC32C c = new CRC32C();
        c.update(data);
        return (int) c.getValue();
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

    private static InvalidModelException missing(String what, Path file) {
        return new InvalidModelException(ErrorCode.NO_SUCH_FILE, what + ": context binary " + file
                + " does not exist", null);
    }

    private static InvalidModelException bad(String what, Path file, String why) {
        return new InvalidModelException(what + ": context binary " + file + ": " + why);
    }
}
