package io.ortex.runtime.internal.cache;

import io.ortex.api.ErrorCode;
import io.ortex.api.OrtexException;
import io.ortex.onnx.ModelWriter;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The SHA-256 of files the compile cache keys on (models and their external data), memoized by the file's identity:
 * its absolute path, size, modification time and file key (the inode on Unix), as build tools recognize an unchanged
 * file. A file that is replaced or rewritten gets a new identity and is hashed again. The memo lives in this process
 * and, so that a new process hits as fast, in a folder of small text files (one per path) inside the cache folder.
 * Thread safe; the files are written atomically, and one that cannot be read or does not match is ignored.
 */
public final class FileHashes {
    /** The folder of the memo files inside a cache folder. */
    static final String FOLDER = "file-hashes";
    private static final String FORMAT = "ortex-file-hash-1";
    private static final Logger LOG = LoggerFactory.getLogger("io.ortex.runtime.cache");
    /**
     * A file modified this recently is hashed but not memoized: on a file system that keeps coarse times, a write
     * right after the hash could leave the same size and time.
     */
    static final long SETTLED_NANOS = java.util.concurrent.TimeUnit.SECONDS.toNanos(2);
    /** The memo of this process, shared by every cache folder. */
    private static final Map<Identity, String> MEMO = new ConcurrentHashMap<>();

    /**
     * What identifies one state of a file.
     *
     * @param path the absolute, normalized path
     * @param size its size in bytes
     * @param modified its modification time, in nanoseconds since the epoch as far as the file system keeps them
     * @param fileKey the file system's key of the file ({@code (dev=...,ino=...)} on Unix), or empty
     */
    record Identity(Path path, long size, long modified, String fileKey) {
        /** The identity's text in a memo file: one field a line. */
        String text() {
            return path + "\n" + size + "\n" + modified + "\n" + fileKey;
        }
    }

    private final Path folder;

    /**
     * Creates the memo of a cache folder.
     *
     * @param cacheFolder the cache folder, or {@code null} to memoize in this process only
     */
    public FileHashes(Path cacheFolder) {
        this.folder = cacheFolder == null ? null : cacheFolder.resolve(FOLDER);
    }

    /**
     * Gets a file's SHA-256, hashing it only when its identity is not memoized.
     *
     * @param file the file
     * @return 64 lowercase hexadecimal digits
     * @throws OrtexException when the file cannot be read
     */
    public String sha256(Path file) {
        Identity id = identity(file);
        String known = MEMO.get(id);
        if (known == null) {
            known = readMemo(id);
        }
        if (known == null) {
            known = hash(file);
            // hashed from a file that changed meanwhile, or may still: memoize nothing
            long now = java.util.concurrent.TimeUnit.MILLISECONDS.toNanos(System.currentTimeMillis());
            if (!identity(file).equals(id) || now - id.modified() < SETTLED_NANOS) {
                return known;
            }
            writeMemo(id, known);
        }
        MEMO.put(id, known);
        return known;
    }

    static Identity identity(Path file) {
        Path p = file.toAbsolutePath().normalize();
        try {
            BasicFileAttributes a = Files.readAttributes(p, BasicFileAttributes.class);
            long modified = a.lastModifiedTime().to(java.util.concurrent.TimeUnit.NANOSECONDS);
            return new Identity(p, a.size(), modified, Objects.toString(a.fileKey(), ""));
        } catch (IOException e) {
            throw new OrtexException(ErrorCode.FAIL, "compile cache: cannot read " + p + " to key the model: "
                    + e.getMessage(), e);
        }
    }

    private Path memoFile(Identity id) {
        return folder.resolve(hash(id.path().toString().getBytes(StandardCharsets.UTF_8)) + ".txt");
    }

    private String readMemo(Identity id) {
        if (folder == null) {
            return null;
        }
        Path f = memoFile(id);
        try {
            List<String> lines = Files.readAllLines(f, StandardCharsets.UTF_8);
            String expected = FORMAT + "\n" + id.text();
            if (lines.size() == 6 && String.join("\n", lines.subList(0, 5)).equals(expected)
                    && lines.get(5).matches("[0-9a-f]{64}")) {
                return lines.get(5);
            }
        } catch (NoSuchFileException e) {
            return null;
        } catch (IOException | RuntimeException e) {
            LOG.debug("compile cache: ignoring the unreadable file hash {}: {}", f, e.toString());
        }
        return null;
    }

    private void writeMemo(Identity id, String sha) {
        if (folder == null) {
            return;
        }
        Path f = memoFile(id);
        try {
            Files.createDirectories(folder);
            byte[] text = (FORMAT + "\n" + id.text() + "\n" + sha + "\n").getBytes(StandardCharsets.UTF_8);
            ModelWriter.writeAtomically(f, out -> out.write(text));
        } catch (IOException | RuntimeException e) {
            // the memo only saves time; the key is right without it
            LOG.debug("compile cache: cannot write the file hash {}: {}", f, e.toString());
        }
    }

    private static String hash(Path file) {
        MessageDigest digest = sha256();
        try (InputStream in = Files.newInputStream(file)) {
            byte[] buf = new byte[1 << 16];
            for (int n; (n = in.read(buf)) > 0; ) {
                digest.update(buf, 0, n);
            }
        } catch (IOException e) {
            throw new OrtexException(ErrorCode.FAIL, "compile cache: cannot read " + file + " to key the model: "
                    + e.getMessage(), e);
        }
        return HexFormat.of().formatHex(digest.digest());
    }

    private static String hash(byte[] bytes) {
        return HexFormat.of().formatHex(sha256().digest(bytes));
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("the JVM has no SHA-256", e);
        }
    }

    /** Forgets this process's memo, for tests that hash files again. */
    static void forgetProcessMemo() {
        MEMO.clear();
    }
}
