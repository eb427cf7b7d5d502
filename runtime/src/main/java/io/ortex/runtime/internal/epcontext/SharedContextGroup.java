package io.ortex.runtime.internal.epcontext;

import io.ortex.api.InvalidArgumentException;
import io.ortex.api.spi.SharedBlob;
import io.ortex.onnx.StagedFiles;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The shared context binary of a group of compiled models while it is being built: the entries (payloads and shared
 * blobs) collected by the group's sessions, each stored once by content, until {@link #flush()} writes them. All
 * models of a group live in one folder, the binary's. Thread safe.
 */
public final class SharedContextGroup {
    private final Path folder;
    private final String fileName;
    private final Map<String, byte[]> entries = new LinkedHashMap<>();
    private boolean mainClaimed;

    /**
     * Creates an empty group.
     *
     * @param folder the folder of the group's models and of the binary
     * @param fileName the binary's file name
     */
    public SharedContextGroup(Path folder, String fileName) {
        this.folder = folder.toAbsolutePath().normalize();
        this.fileName = fileName;
    }

    /**
     * Gets the binary's file name, relative to the models' folder.
     *
     * @return the name
     */
    public String fileName() {
        return fileName;
    }

    /**
     * Gets the binary's path.
     *
     * @return the path
     */
    public Path file() {
        return folder.resolve(fileName);
    }

    /**
     * Checks that a compiled model goes into the group's folder, where its context paths resolve.
     *
     * @param modelFolder the compiled model's folder
     * @throws InvalidArgumentException when it is another folder
     */
    public void checkFolder(Path modelFolder) {
        if (!folder.equals(modelFolder.toAbsolutePath().normalize())) {
            throw new InvalidArgumentException("models that share EP contexts must be compiled into one folder: the"
                    + " shared context binary " + file() + " is in " + folder + ", not in " + modelFolder);
        }
    }

    /**
     * Adds a blob, once per content.
     *
     * @param blob the blob
     * @return its key
     */
    public synchronized String add(SharedBlob blob) {
        entries.putIfAbsent(blob.key(), blob.data());
        return blob.key();
    }

    /**
     * Adds bytes (a payload), once per content.
     *
     * @param bytes the bytes
     * @return their key
     */
    public synchronized String add(byte[] bytes) {
        return add(SharedBlob.of(bytes));
    }

    /**
     * Tells whether the caller's node is the first of the group, which gets {@code main_context=1}.
     *
     * @return true once, for the first caller
     */
    public synchronized boolean claimMain() {
        boolean first = !mainClaimed;
        mainClaimed = true;
        return first;
    }

    /**
     * Gets the number of entries so far.
     *
     * @return the count
     */
    public synchronized int size() {
        return entries.size();
    }

    /**
     * Writes the binary atomically.
     *
     * @return the file written
     */
    public synchronized Path flush() {
        SharedContextFile.write(file(), new LinkedHashMap<>(entries));
        return file();
    }

    /**
     * Stages the binary in a write of several files, to be moved into place with them.
     *
     * @param files the staged write
     * @return the file staged
     */
    public synchronized Path stage(StagedFiles files) {
        return files.add(file(), SharedContextFile.content(new LinkedHashMap<>(entries)));
    }
}
