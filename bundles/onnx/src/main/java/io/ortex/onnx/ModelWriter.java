package io.ortex.onnx;

import com.google.protobuf.ByteString;
import io.ortex.api.ErrorCode;
import io.ortex.api.InvalidArgumentException;
import io.ortex.api.OrtexException;
import io.ortex.onnx.proto.Onnx.GraphProto;
import io.ortex.onnx.proto.Onnx.ModelProto;
import io.ortex.onnx.proto.Onnx.StringStringEntryProto;
import io.ortex.onnx.proto.Onnx.TensorProto;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFileAttributeView;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Writes ONNX models, with initializers embedded or moved to one external data file beside the model. Each file is
 * written to a temporary name in the target folder, flushed to disk and moved into place, so a failed or interrupted
 * write never leaves a half-written file behind and leaves an existing target as it was. Stateless; safe to call
 * from many threads for different targets.
 */
public final class ModelWriter {
    /** External data offsets are aligned to this many bytes, so that the file can be mapped efficiently. */
    static final int ALIGNMENT = 64;

    private ModelWriter() {
    }

    /**
     * Writes a model with every initializer as it is in the message.
     *
     * @param model the model
     * @param target the file to write
     * @throws OrtexException when the file cannot be written, naming it
     */
    public static void write(ModelProto model, Path target) {
        writeAtomically(target, model::writeTo);
    }

    /**
     * Writes a model, moving the raw data of main-graph initializers of at least {@code thresholdBytes} bytes to an
     * external file named {@code externalName} in the model's folder, each at an offset aligned to 64 bytes. Both
     * files are written in full to temporary names first; the data file is moved into place before the model, so
     * the new model never points at missing data.
     *
     * @param model the model; its initializers must hold their data in {@code raw_data} to be moved
     * @param target the model file to write
     * @param externalName the external file's name, relative to the model's folder
     * @param thresholdBytes the smallest initializer moved out
     * @throws InvalidArgumentException when {@code externalName} escapes the folder or names the model file
     * @throws OrtexException when a file cannot be written, naming it
     */
    public static void write(ModelProto model, Path target, String externalName, long thresholdBytes) {
        Path modelFile = target.toAbsolutePath().normalize();
        Path dataFile;
        try {
            dataFile = ExternalData.resolveInside(modelFile.getParent(), externalName, "external data file");
        } catch (OrtexException e) {
            throw new InvalidArgumentException(e.getMessage());
        }
        if (dataFile.equals(modelFile)) {
            throw new InvalidArgumentException("external data file '" + externalName + "' is the model file "
                    + target + " itself");
        }
        GraphProto.Builder graph = model.getGraph().toBuilder();
        Path tmpData = tempBeside(dataFile);
        Path tmpModel = null;
        boolean done = false;
        try {
            writeFile(tmpData, out -> moveRawData(graph, externalName, thresholdBytes, out));
            ModelProto updated = model.toBuilder().setGraph(graph).build();
            tmpModel = tempBeside(modelFile);
            writeFile(tmpModel, updated::writeTo);
            move(tmpData, dataFile);
            move(tmpModel, modelFile);
            done = true;
        } catch (IOException e) {
            throw new OrtexException(ErrorCode.FAIL, "cannot write " + target + " with external data "
                    + dataFile + ": " + e.getMessage(), e);
        } finally {
            if (!done) {
                deleteQuietly(tmpData);
                if (tmpModel != null) {
                    deleteQuietly(tmpModel);
                }
            }
        }
    }

    /** Writes the raw data of large initializers to {@code data} and points the initializers at it. */
    private static void moveRawData(GraphProto.Builder graph, String externalName, long thresholdBytes,
            OutputStream data) throws IOException {
        long offset = 0;
        for (int i = 0; i < graph.getInitializerCount(); i++) {
            TensorProto t = graph.getInitializer(i);
            if (!t.hasRawData() || t.getRawData().size() < thresholdBytes) {
                continue;
            }
            long padding = (ALIGNMENT - offset % ALIGNMENT) % ALIGNMENT;
            data.write(new byte[(int) padding]);
            offset += padding;
            ByteString raw = t.getRawData();
            raw.writeTo(data);
            graph.setInitializer(i, t.toBuilder().clearRawData()
                    .setDataLocation(TensorProto.DataLocation.EXTERNAL)
                    .clearExternalData()
                    .addExternalData(entry("location", externalName))
                    .addExternalData(entry("offset", Long.toString(offset)))
                    .addExternalData(entry("length", Long.toString(raw.size()))));
            offset += raw.size();
        }
    }

    /** Something that writes a file's content. */
    @FunctionalInterface
    public interface Content {
        /**
         * Writes the content.
         *
         * @param out the stream to write to; closed by the caller
         * @throws IOException when writing fails
         */
        void writeTo(OutputStream out) throws IOException;
    }

    /**
     * Writes a file through a temporary file in the same folder and an atomic move. Whatever goes wrong (the folder
     * cannot be written, the content throws, the move fails), the temporary file is removed and an existing target
     * is left unchanged.
     *
     * @param target the file
     * @param content what to write
     * @throws OrtexException when the file cannot be written, naming it; exceptions thrown by {@code content} other
     *     than {@link IOException} are passed on as they are
     */
    public static void writeAtomically(Path target, Content content) {
        Path file = target.toAbsolutePath().normalize();
        Path tmp = tempBeside(file);
        boolean done = false;
        try {
            writeFile(tmp, content);
            move(tmp, file);
            done = true;
        } catch (IOException e) {
            throw new OrtexException(ErrorCode.FAIL, "cannot write " + target + ": " + e.getMessage(), e);
        } finally {
            if (!done) {
                deleteQuietly(tmp);
            }
        }
    }

    /** Writes content to a file and forces it to disk, so that a move after a crash never exposes a partial file. */
    private static void writeFile(Path file, Content content) throws IOException {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING);
                OutputStream out = new BufferedOutputStream(Channels.newOutputStream(ch), 1 << 16)) {
            content.writeTo(out);
            out.flush();
            ch.force(true);
        }
    }

    /**
     * Creates an empty temporary file beside a target: hidden, with the target's permissions when it exists and the
     * folder's default permissions otherwise (not the owner-only permissions of {@link Files#createTempFile}).
     */
    private static Path tempBeside(Path target) {
        Path folder = target.getParent();
        try {
            Files.createDirectories(folder);
            for (int attempt = 0; ; attempt++) {
                Path tmp = folder.resolve("." + target.getFileName() + "."
                        + Long.toHexString(ThreadLocalRandom.current().nextLong()) + ".tmp");
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

    private static void move(Path from, Path to) throws IOException {
        try {
            Files.move(from, to, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (AtomicMoveNotSupportedException e) {
            Files.move(from, to, StandardCopyOption.REPLACE_EXISTING);
        }
    }

    private static void deleteQuietly(Path p) {
        try {
            Files.deleteIfExists(p);
        } catch (IOException ignored) {
            // best effort: the temporary name starts with a dot and ends with .tmp
        }
    }

    private static StringStringEntryProto entry(String key, String value) {
        return StringStringEntryProto.newBuilder().setKey(key).setValue(value).build();
    }
}
