package io.ortex.benchmarks.serving;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Comparator;
import java.util.stream.Stream;

/**
 * One model folder of the server's {@code models/}, changed as a user changes it: every file is written under a
 * hidden name and renamed, so that the server never sees half a copy. Not thread safe.
 */
final class ModelFolder {
    private final Path dir;
    private final Path model;
    private final String name;
    private int version;

    private ModelFolder(Path dir, Path model, int version) {
        this.dir = dir;
        this.model = model;
        this.name = dir.getFileName().toString();
        this.version = version;
    }

    /**
     * Copies a model in as version 1 with its configuration.
     *
     * @param models the server's {@code models/}
     * @param name the model's name
     * @param model the ONNX file
     * @param config the content of {@code config.properties}, or empty for none
     * @return the folder
     * @throws IOException when copying fails
     */
    static ModelFolder install(Path models, String name, Path model, String config) throws IOException {
        Path staging = models.resolve("." + name);
        Files.createDirectories(staging.resolve("1"));
        Files.copy(model, staging.resolve("1/model.onnx"), StandardCopyOption.REPLACE_EXISTING);
        if (!config.isEmpty()) {
            Files.writeString(staging.resolve("config.properties"), config);
        }
        Path dir = models.resolve(name);
        Files.move(staging, dir, StandardCopyOption.ATOMIC_MOVE);
        return new ModelFolder(dir, model, 1);
    }

    /**
     * Gets the model's name.
     *
     * @return the folder's name
     */
    String name() {
        return name;
    }

    /**
     * Gets the newest version copied in.
     *
     * @return the version number
     */
    int version() {
        return version;
    }

    /**
     * Replaces {@code config.properties} (which reloads the model).
     *
     * @param config the new content
     * @throws IOException when writing fails
     */
    void writeConfig(String config) throws IOException {
        Path tmp = dir.resolve(".config.properties.tmp");
        Files.writeString(tmp, config);
        Files.move(tmp, dir.resolve("config.properties"), StandardCopyOption.ATOMIC_MOVE,
                StandardCopyOption.REPLACE_EXISTING);
    }

    /**
     * Copies the model in as the next version.
     *
     * @return the new version number
     * @throws IOException when copying fails
     */
    int addVersion() throws IOException {
        Path staging = dir.resolve(".next");
        Files.createDirectories(staging);
        Files.copy(model, staging.resolve("model.onnx"), StandardCopyOption.REPLACE_EXISTING);
        Files.move(staging, dir.resolve(Integer.toString(version + 1)), StandardCopyOption.ATOMIC_MOVE);
        return ++version;
    }

    /**
     * Deletes a version's folder.
     *
     * @param v the version
     * @throws IOException when deleting fails
     */
    void removeVersion(int v) throws IOException {
        try (Stream<Path> files = Files.walk(dir.resolve(Integer.toString(v)))) {
            for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }
}
