package io.ortex.onnx;

import com.google.protobuf.ByteString;
import io.ortex.api.OrtexException;
import io.ortex.api.ErrorCode;
import io.ortex.onnx.proto.Onnx.GraphProto;
import io.ortex.onnx.proto.Onnx.ModelProto;
import io.ortex.onnx.proto.Onnx.StringStringEntryProto;
import io.ortex.onnx.proto.Onnx.TensorProto;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

/**
 * Writes ONNX models, with initializers embedded or moved to one external data file beside the model. Each file is
 * written to a temporary name in the target folder and moved into place, so a failed or interrupted write never
 * leaves a half-written model behind.
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
     */
    public static void write(ModelProto model, Path target) {
        writeAtomically(target, out -> model.writeTo(out));
    }

    /**
     * Writes a model, moving the raw data of initializers of at least {@code thresholdBytes} bytes to an external
     * file named {@code externalName} in the model's folder.
     *
     * @param model the model; its initializers must hold their data in {@code raw_data} to be moved
     * @param target the model file to write
     * @param externalName the external file's name, relative to the model's folder
     * @param thresholdBytes the smallest initializer moved out
     */
    public static void write(ModelProto model, Path target, String externalName, long thresholdBytes) {
        Path folder = target.toAbsolutePath().getParent();
        Path dataFile = ExternalData.resolveInside(folder, externalName, "external data file");
        GraphProto.Builder graph = model.getGraph().toBuilder();
        Path tmpData = tempBeside(dataFile);
        try (OutputStream data = Files.newOutputStream(tmpData)) {
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
        } catch (IOException e) {
            deleteQuietly(tmpData);
            throw new OrtexException(ErrorCode.FAIL, "cannot write external data " + dataFile + ": "
                    + e.getMessage(), e);
        }
        ModelProto out = model.toBuilder().setGraph(graph).build();
        try {
            write(out, target);
            move(tmpData, dataFile);
        } catch (RuntimeException e) {
            deleteQuietly(tmpData);
            throw e;
        }
    }

    /** Something that writes a file's content. */
    @FunctionalInterface
    public interface Content {
        /**
         * Writes the content.
         *
         * @param out the stream to write to
         * @throws IOException when writing fails
         */
        void writeTo(OutputStream out) throws IOException;
    }

    /**
     * Writes a file through a temporary file in the same folder and an atomic move.
     *
     * @param target the file
     * @param content what to write
     */
    public static void writeAtomically(Path target, Content content) {
        Path tmp = tempBeside(target);
        try {
            try (OutputStream out = Files.newOutputStream(tmp)) {
                content.writeTo(out);
            }
            move(tmp, target);
        } catch (IOException e) {
            deleteQuietly(tmp);
            throw new OrtexException(ErrorCode.FAIL, "cannot write " + target + ": " + e.getMessage(), e);
        } catch (RuntimeException e) {
            deleteQuietly(tmp);
            throw e;
        }
    }

    private static Path tempBeside(Path target) {
        Path folder = target.toAbsolutePath().getParent();
        try {
            Files.createDirectories(folder);
            return Files.createTempFile(folder, "." + target.getFileName() + ".", ".tmp");
        } catch (IOException e) {
            throw new OrtexException(ErrorCode.FAIL, "cannot write in " + folder + ": " + e.getMessage(), e);
        }
    }

    private static void move(Path from, Path to) {
        try {
            try {
                Files.move(from, to, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(from, to, StandardCopyOption.REPLACE_EXISTING);
            }
        } catch (IOException e) {
            deleteQuietly(from);
            throw new OrtexException(ErrorCode.FAIL, "cannot move the new file into " + to + ": "
                    + e.getMessage(), e);
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
