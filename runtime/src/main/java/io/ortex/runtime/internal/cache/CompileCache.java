package io.ortex.runtime.internal.cache;

import io.ortex.api.InvalidArgumentException;
import io.ortex.api.SessionOptions;
import com.google.protobuf.CodedInputStream;
import io.ortex.onnx.ModelWriter;
import io.ortex.onnx.proto.Onnx.ModelProto;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.zip.CRC32C;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The compile cache's folder of entries: one file per key, {@code <key>.ortexc}, holding a compiled model (payloads
 * embedded, so that one file is one entry) without the initializers its source model holds ({@link
 * SourceInitializers}), and the memo of the files' hashes ({@link FileHashes}, in {@code file-hashes/}).
 *
 * <h2>Entry format</h2>
 * The serialized compiled model ({@code ModelProto}), then the CRC-32C of those bytes (an 8-byte little-endian
 * {@code long}), then the 8 ASCII bytes {@code OXCC0003}. An entry whose trailer is missing or whose checksum
 * differs is corrupted. (The key already names the content; the checksum only detects torn or damaged files, so a
 * fast CRC is enough where a second SHA-256 over the entry would cost a hit as much as hashing the model.)
 *
 * <h2>Concurrency</h2>
 * Entries are written to a hidden temporary file in the cache folder and moved into place atomically, so a reader,
 * in this process or another, sees a whole entry or none; two writers of one key both succeed and the last move
 * wins (both wrote the same compilation). Readers read an entry in one go and treat a vanished file as a miss, so
 * eviction by another process is safe. A hit sets the entry's modification time to now, which is what the
 * least-recently-used eviction orders by. Thread safe.
 */
public final class CompileCache {
    /** The file extension of entries. */
    public static final String SUFFIX = ".ortexc";
    private static final byte[] MAGIC = "OXCC0003".getBytes(StandardCharsets.US_ASCII);
    /** As deep as the model reader lets messages nest. */
    private static final int RECURSION_LIMIT = 400;
    private static final int TRAILER = 8 + 8;
    private static final Logger LOG = LoggerFactory.getLogger("io.ortex.runtime.cache");

    private final Path folder;
    private final long maxBytes;

    /**
     * Opens a cache folder, creating it when needed.
     *
     * @param folder the folder
     * @param maxBytes the most bytes of entries to keep
     * @throws InvalidArgumentException when the folder cannot be created or {@code maxBytes} is not positive
     */
    public CompileCache(Path folder, long maxBytes) {
        if (maxBytes <= 0) {
            throw new InvalidArgumentException(SessionOptions.COMPILE_CACHE_MAX_BYTES + " must be positive, got "
                    + maxBytes);
        }
        this.folder = folder.toAbsolutePath().normalize();
        this.maxBytes = maxBytes;
        try {
            Files.createDirectories(this.folder);
        } catch (IOException e) {
            throw new InvalidArgumentException(SessionOptions.COMPILE_CACHE_DIR + " " + folder + " cannot be"
                    + " created: " + e.getMessage());
        }
    }

    /**
     * Opens the cache a session's configuration asks for: the session option, else the environment entry.
     *
     * @param session the session configuration
     * @param environment the environment configuration
     * @return the cache, or {@code null} when it is off
     * @throws InvalidArgumentException when the size limit is not a positive number
     */
    public static CompileCache configured(Map<String, String> session, Map<String, String> environment) {
        String dir = setting(SessionOptions.COMPILE_CACHE_DIR, SessionOptions.COMPILE_CACHE_DIR_DEFAULT, session,
                environment);
        if (dir.isBlank()) {
            return null;
        }
        String max = setting(SessionOptions.COMPILE_CACHE_MAX_BYTES, SessionOptions.COMPILE_CACHE_MAX_BYTES_DEFAULT,
                session, environment);
        long bytes;
        try {
            bytes = Long.parseLong(max.trim());
        } catch (NumberFormatException e) {
            throw new InvalidArgumentException(SessionOptions.COMPILE_CACHE_MAX_BYTES + " must be a number of bytes,"
                    + " got '" + max + "'");
        }
        return new CompileCache(Path.of(dir), bytes);
    }

    private static String setting(String key, String defaultValue, Map<String, String> session,
                                  Map<String, String> environment) {
        String v = session.get(key);
        if (v == null) {
            v = environment.get(key);
        }
        return v == null ? defaultValue : v;
    }

    /**
     * Gets the cache folder.
     *
     * @return the folder
     */
    public Path folder() {
        return folder;
    }

    /**
     * Gets the file of an entry.
     *
     * @param key the key
     * @return the file, which may not exist
     */
    public Path entry(String key) {
        return folder.resolve(key + SUFFIX);
    }

    /**
     * Stores a compiled model, leaving out the initializers its source holds.
     *
     * @param key the key
     * @param compiled the compiled model's bytes
     * @param source the source model
     * @return the entry's file
     * @throws IllegalArgumentException when the compiled bytes are not a model
     */
    public Path store(String key, byte[] compiled, ModelProto source) {
        return store(key, SourceInitializers.strip(parse(compiled, compiled.length), source).toByteArray());
    }

    /**
     * Loads a compiled model, whole: its entry with the initializers taken from its source. An entry that is
     * corrupted or does not fit its source is logged and deleted.
     *
     * @param key the key
     * @param source the source model
     * @return the compiled model, or {@code null} on a miss or an unusable entry
     */
    public ModelProto load(String key, ModelProto source) {
        byte[] entry = read(key);
        if (entry == null) {
            return null;
        }
        try {
            return SourceInitializers.restore(parse(entry, entry.length - TRAILER), source);
        } catch (IllegalArgumentException | IllegalStateException e) {
            LOG.warn("compile cache: entry {} cannot be used ({}); deleting it and compiling again", entry(key),
                    e.getMessage());
            remove(key);
            return null;
        }
    }

    private static ModelProto parse(byte[] bytes, int length) {
        // the message's byte strings alias the array rather than copy it: an entry is mostly payload
        CodedInputStream in = CodedInputStream.newInstance(bytes, 0, length);
        in.enableAliasing(true);
        in.setRecursionLimit(RECURSION_LIMIT);
        in.setSizeLimit(Integer.MAX_VALUE);
        try {
            return ModelProto.parseFrom(in);
        } catch (IOException e) {
            throw new IllegalArgumentException("it is not a model: " + e.getMessage(), e);
        }
    }

    /**
     * Reads an entry, refreshing its modification time. A corrupted entry is logged and deleted.
     *
     * @param key the key
     * @return the compiled model's bytes, or {@code null} on a miss or a corrupted entry
     */
    public byte[] load(String key) {
        byte[] all = read(key);
        return all == null ? null : Arrays.copyOf(all, all.length - TRAILER);
    }

    /**
     * Reads an entry with its trailer, checked, refreshing its modification time. A corrupted entry is logged and
     * deleted.
     *
     * @param key the key
     * @return the entry's bytes, the compiled model then the trailer; {@code null} on a miss or a corrupted entry
     */
    private byte[] read(String key) {
        Path file = entry(key);
        byte[] all;
        try {
            all = Files.readAllBytes(file);
        } catch (NoSuchFileException e) {
            return null;
        } catch (IOException e) {
            LOG.warn("compile cache: cannot read {}: {}; compiling", file, e.getMessage());
            return null;
        }
        if (!verified(all)) {
            LOG.warn("compile cache: entry {} is corrupted (bad trailer or checksum); deleting it and compiling again",
                    file);
            remove(key);
            return null;
        }
        try {
            Files.setLastModifiedTime(file, FileTime.fromMillis(System.currentTimeMillis()));
        } catch (IOException e) {
            // evicted meanwhile, or read-only: the bytes read are still whole
            LOG.debug("compile cache: cannot touch {}: {}", file, e.getMessage());
        }
        return all;
    }

    private static boolean verified(byte[] all) {
        if (all.length < TRAILER || !Arrays.equals(all, all.length - MAGIC.length, all.length, MAGIC, 0,
                MAGIC.length)) {
            return false;
        }
        int n = all.length - TRAILER;
        long stored = ByteBuffer.wrap(all, n, 8).order(ByteOrder.LITTLE_ENDIAN).getLong();
        return stored == crc(all, n);
    }

    private static long crc(byte[] b, int length) {
        CRC32C c = new CRC32C();
        c.update(b, 0, length);
        return c.getValue();
    }

    /**
     * Stores an entry atomically, then evicts least recently used entries beyond the size limit (never this one).
     *
     * @param key the key
     * @param model the compiled model's bytes
     * @return the entry's file
     */
    public Path store(String key, byte[] model) {
        Path file = entry(key);
        byte[] check = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putLong(crc(model, model.length)).array();
        ModelWriter.writeAtomically(file, out -> {
            out.write(model);
            out.write(check);
            out.write(MAGIC);
        });
        evict(file);
        return file;
    }

    /**
     * Deletes an entry, if it exists.
     *
     * @param key the key
     */
    public void remove(String key) {
        try {
            Files.deleteIfExists(entry(key));
        } catch (IOException e) {
            LOG.warn("compile cache: cannot delete {}: {}", entry(key), e.getMessage());
        }
    }

    /** One entry seen by eviction. */
    private record Seen(Path file, long size, long modified) {
    }

    /** Deletes the least recently modified entries until the entries fit in the limit, keeping {@code keep}. */
    private void evict(Path keep) {
        List<Seen> entries = new ArrayList<>();
        long total = 0;
        try (DirectoryStream<Path> dir = Files.newDirectoryStream(folder, "*" + SUFFIX)) {
            for (Path p : dir) {
                try {
                    Seen s = new Seen(p, Files.size(p), Files.getLastModifiedTime(p).toMillis());
                    entries.add(s);
                    total += s.size();
                } catch (NoSuchFileException e) {
                    // removed by another process meanwhile
                }
            }
        } catch (IOException e) {
            LOG.warn("compile cache: cannot list {}: {}", folder, e.getMessage());
            return;
        }
        if (total <= maxBytes) {
            return;
        }
        entries.sort(Comparator.comparingLong(Seen::modified).thenComparing(s -> s.file().toString()));
        for (Seen s : entries) {
            if (total <= maxBytes) {
                break;
            }
            if (s.file().equals(keep)) {
                continue;
            }
            try {
                Files.deleteIfExists(s.file());
                total -= s.size();
                LOG.debug("compile cache: evicted {}", s.file());
            } catch (IOException e) {
                LOG.warn("compile cache: cannot evict {}: {}", s.file(), e.getMessage());
            }
        }
    }
}
