package io.ortex.runtime.internal.cache;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ortex.api.OrtexException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileTime;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The memo of file hashes: by path, size, modification time and file key, in this process and on disk. */
class FileHashesTest {
    @TempDir
    Path dir;

    @AfterEach
    void forget() {
        FileHashes.forgetProcessMemo();
    }

    private static String sha(String text) throws Exception {
        return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(
                text.getBytes(StandardCharsets.UTF_8)));
    }

    /** Writes a file and dates it a minute back, settled. */
    private Path settled(String name, String text) throws IOException {
        Path f = dir.resolve(name);
        Files.writeString(f, text);
        Files.setLastModifiedTime(f, FileTime.fromMillis(System.currentTimeMillis() - 60_000));
        return f;
    }

    private List<Path> memoFiles() throws IOException {
        Path folder = dir.resolve("cache").resolve(FileHashes.FOLDER);
        if (!Files.isDirectory(folder)) {
            return List.of();
        }
        try (Stream<Path> s = Files.list(folder)) {
            return s.toList();
        }
    }

    @Test
    void aSettledFileIsHashedOnceAndTheMemoOutlivesTheProcess() throws Exception {
        Path model = settled("model.onnx", "weights v1");
        FileHashes hashes = new FileHashes(dir.resolve("cache"));
        assertEquals(sha("weights v1"), hashes.sha256(model));
        assertEquals(1, memoFiles().size());

        // same size, same time, same file: the memo answers, as a new process would read it from disk
        FileTime time = Files.getLastModifiedTime(model);
        Files.writeString(model, "weights v2", StandardOpenOption.TRUNCATE_EXISTING);
        Files.setLastModifiedTime(model, time);
        FileHashes.forgetProcessMemo();
        assertEquals(sha("weights v1"), new FileHashes(dir.resolve("cache")).sha256(model),
                "an unchanged identity is not hashed again");

        // a new modification time is a new identity
        Files.setLastModifiedTime(model, FileTime.fromMillis(time.toMillis() + 1_000));
        assertEquals(sha("weights v2"), new FileHashes(dir.resolve("cache")).sha256(model));
    }

    @Test
    void aReplacedFileIsANewIdentity() throws Exception {
        Path model = settled("model.onnx", "weights v1");
        FileHashes hashes = new FileHashes(dir.resolve("cache"));
        FileTime time = Files.getLastModifiedTime(model);
        hashes.sha256(model);
        Path next = settled("next.onnx", "weights v2");
        Files.setLastModifiedTime(next, time);
        Files.move(next, model, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        assertEquals(time, Files.getLastModifiedTime(model));
        assertEquals(sha("weights v2"), hashes.sha256(model), "another file (inode) under the same name and time");
    }

    @Test
    void aFileModifiedJustNowIsHashedButNotMemoized() throws Exception {
        Path model = dir.resolve("fresh.onnx");
        Files.writeString(model, "still being written");
        assertEquals(sha("still being written"), new FileHashes(dir.resolve("cache")).sha256(model));
        assertTrue(memoFiles().isEmpty());
    }

    @Test
    void aDamagedOrForeignMemoFileIsIgnored() throws Exception {
        Path model = settled("model.onnx", "weights v1");
        new FileHashes(dir.resolve("cache")).sha256(model);
        Path memo = memoFiles().get(0);
        for (String junk : List.of("", "ortex-file-hash-1\n", "not a memo at all\n\n\n\n\n",
                Files.readString(memo).replace(sha("weights v1"), "zz"))) {
            Files.writeString(memo, junk);
            FileHashes.forgetProcessMemo();
            assertEquals(sha("weights v1"), new FileHashes(dir.resolve("cache")).sha256(model), junk);
        }
    }

    @Test
    void aMissingFileIsAnErrorNamingIt() {
        OrtexException e = assertThrows(OrtexException.class,
                () -> new FileHashes(null).sha256(dir.resolve("gone.onnx")));
        assertTrue(e.getMessage().contains("gone.onnx"), e.getMessage());
    }

    @Test
    void withoutACacheFolderOnlyTheProcessRemembers() throws Exception {
        Path model = settled("model.onnx", "weights v1");
        assertEquals(sha("weights v1"), new FileHashes(null).sha256(model));
        assertFalse(Files.exists(dir.resolve("cache")));
        assertNotEquals(sha("other"), new FileHashes(null).sha256(model));
    }
}
