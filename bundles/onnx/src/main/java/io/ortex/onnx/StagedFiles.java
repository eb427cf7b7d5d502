package io.ortex.onnx;

import io.ortex.api.ErrorCode;
import io.ortex.api.OrtexException;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFileAttributeView;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

/**
 * A set of files written together: each is written in full to a temporary file beside its target and forced to disk
 * when it is added, and {@link #commit()} then moves them all into place, in the order they were added. Until the
 * commit nothing is visible under a target's name, so a write that fails or a process killed half-way leaves no
 * partial output.
 *
 * <p>In {@linkplain #createNew create-new} mode no move replaces a file: each target is claimed with a hard link,
 * which the file system refuses atomically when the name is taken, so of several writers racing for one new name
 * exactly one succeeds; a commit that finds a target taken removes the targets it had already placed and fails. In
 * replace mode each move is an atomic rename over whatever is there.
 *
 * <p>Temporary names are {@code .<target name>.<pid>-<random>.tmp}: hidden, never equal to a target, and owned by a
 * process. Adding a file removes the temporary files of the same target whose owning process is gone (a writer
 * killed before its commit), so they do not pile up.
 *
 * <p>Not thread safe; one instance serves one write. Close it (try-with-resources) to remove the temporaries of a
 * write that did not commit.
 */
public final class StagedFiles implements AutoCloseable {
    private static final String SUFFIX = ".tmp";

    private final boolean createNew;
    private final List<Path> temporaries = new ArrayList<>();
    private final List<Path> targets = new ArrayList<>();
    private boolean committed;

    private StagedFiles(boolean createNew) {
        this.createNew = createNew;
    }

    /**
     * Starts a write whose commit replaces existing targets.
     *
     * @return the staged write
     */
    public static StagedFiles replacing() {
        return new StagedFiles(false);
    }

    /**
     * Starts a write whose commit fails, placing nothing, when any target exists.
     *
     * @return the staged write
     */
    public static StagedFiles createNew() {
        return new StagedFiles(true);
    }

    /**
     * Writes a file's content to a temporary file beside its target.
     *
     * @param target the file to create or replace at the commit
     * @param content what to write
     * @return the target, absolute and normalized
     * @throws OrtexException when the temporary file cannot be written, naming the target; exceptions other than
     *     {@link IOException} thrown by {@code content} are passed on as they are
     */
    public Path add(Path target, ModelWriter.Content content) {
        Path file = target.toAbsolutePath().normalize();
        if (targets.contains(file)) {
            throw new IllegalArgumentException(file + " is written twice");
        }
        Path tmp = temporaryBeside(file);
        temporaries.add(tmp);
        targets.add(file);
        try {
            writeFile(tmp, content);
        } catch (IOException e) {
            throw new OrtexException(ErrorCode.FAIL, "cannot write " + target + ": " + e.getMessage(), e);
        }
        return file;
    }

    /**
     * Gets the targets added so far, in commit order.
     *
     * @return the targets
     */
    public List<Path> targets() {
        return List.copyOf(targets);
    }

    /**
     * Moves every staged file into place, in the order added.
     *
     * @return the targets, in that order
     * @throws OrtexException when a target exists in create-new mode (code {@code FAIL}, naming it) or a move fails;
     *     the targets this commit placed before are removed again
     */
    public List<Path> commit() {
        if (committed) {
            throw new IllegalStateException("already committed");
        }
        committed = true;
        List<Path> placed = new ArrayList<>();
        boolean done = false;
        try {
            for (int i = 0; i < targets.size(); i++) {
                place(temporaries.get(i), targets.get(i));
                placed.add(targets.get(i));
            }
            done = true;
            return List.copyOf(targets);
        } finally {
            if (!done) {
                placed.forEach(StagedFiles::deleteQuietly);
            }
        }
    }

    /** Removes the temporary files that were not moved into place. */
    @Override
    public void close() {
        temporaries.forEach(StagedFiles::deleteQuietly);
    }

    private void place(Path tmp, Path target) {
        try {
            if (!createNew) {
                try {
                    Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
                } catch (AtomicMoveNotSupportedException e) {
                    Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING);
                }
                return;
            }
            try {
                Files.createLink(target, tmp);
            } catch (FileAlreadyExistsException e) {
                throw exists(target, e);
            } catch (UnsupportedOperationException | FileSystemException e) {
                if (e instanceof FileSystemException && Files.exists(target, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
                    throw exists(target, e);
                }
                // no hard links here: a move that refuses an existing target, checked just before the rename
                try {
                    Files.move(tmp, target);
                } catch (FileAlreadyExistsException taken) {
                    throw exists(target, taken);
                }
                return;
            }
            deleteQuietly(tmp);
        } catch (IOException e) {
            throw new OrtexException(ErrorCode.FAIL, "cannot move " + target.getFileName() + " into place in "
                    + target.getParent() + ": " + e.getMessage(), e);
        }
    }

    private static OrtexException exists(Path target, Exception cause) {
        return new OrtexException(ErrorCode.FAIL, target + " exists already and is not replaced; remove it to write"
                + " it again", cause);
    }

    /** Writes content to a file and forces it to disk, so that a move after a crash never exposes a partial file. */
    private static void writeFile(Path file, ModelWriter.Content content) throws IOException {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING);
                OutputStream out = new BufferedOutputStream(Channels.newOutputStream(ch), 1 << 16)) {
            content.writeTo(out);
            out.flush();
            ch.force(true);
        }
    }

    /**
     * Creates an empty temporary file beside a target, with the target's permissions when it exists and the folder's
     * default permissions otherwise (not the owner-only permissions of {@link Files#createTempFile}), after removing
     * the target's temporary files left by processes that are gone.
     */
    static Path temporaryBeside(Path target) {
        Path folder = target.getParent();
        String prefix = "." + target.getFileName() + ".";
        try {
            Files.createDirectories(folder);
            removeAbandoned(folder, prefix);
            long pid = ProcessHandle.current().pid();
            for (int attempt = 0; ; attempt++) {
                Path tmp = folder.resolve(prefix + pid + "-"
                        + Long.toHexString(ThreadLocalRandom.current().nextLong() >>> 1) + SUFFIX);
                try {
                    Files.createFile(tmp);
                } catch (FileAlreadyExistsException e) {
                    if (attempt < 100) {
                        continue;
                    }
                    throw e;
                }
                if (Files.isRegularFile(target) && Files.getFileAttributeView(tmp, PosixFileAttributeView.class)
                        != null) {
                    Files.setPosixFilePermissions(tmp, Files.getPosixFilePermissions(target));
                }
                return tmp;
            }
        } catch (IOException e) {
            throw new OrtexException(ErrorCode.FAIL, "cannot write " + target + ": cannot create a file in "
                    + folder + ": " + e.getMessage(), e);
        }
    }

    /** Removes {@code <prefix><pid>-<hex>.tmp} files whose process no longer runs. */
    private static void removeAbandoned(Path folder, String prefix) {
        try (DirectoryStream<Path> files = Files.newDirectoryStream(folder, p -> {
            String name = p.getFileName().toString();
            return name.startsWith(prefix) && name.endsWith(SUFFIX);
        })) {
            for (Path p : files) {
                String middle = p.getFileName().toString();
                middle = middle.substring(prefix.length(), middle.length() - SUFFIX.length());
                int dash = middle.indexOf('-');
                if (dash <= 0) {
                    continue;
                }
                long pid;
                try {
                    pid = Long.parseLong(middle.substring(0, dash));
                } catch (NumberFormatException e) {
                    continue;
                }
                if (ProcessHandle.of(pid).isEmpty()) {
                    deleteQuietly(p);
                }
            }
        } catch (IOException | RuntimeException e) {
            // tidying is best effort: an abandoned temporary file is hidden and never read
        }
    }

    static void deleteQuietly(Path p) {
        try {
            Files.deleteIfExists(p);
        } catch (IOException ignored) {
            // best effort: the temporary name starts with a dot and ends with .tmp
        }
    }
}
