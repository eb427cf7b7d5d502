package io.ortex.onnx;

import com.google.protobuf.ByteString;
import io.ortex.api.InvalidArgumentException;
import io.ortex.api.Names;
import io.ortex.api.OrtexException;
import io.ortex.onnx.proto.Onnx.GraphProto;
import io.ortex.onnx.proto.Onnx.ModelProto;
import io.ortex.onnx.proto.Onnx.StringStringEntryProto;
import io.ortex.onnx.proto.Onnx.TensorProto;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Path;

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
        try (StagedFiles files = StagedFiles.replacing()) {
            Path data = stage(files, model, target, externalName, thresholdBytes);
            try {
                files.commit();
            } catch (OrtexException e) {
                throw new OrtexException(e.code(), "cannot write " + target + " with external data " + data + ": "
                        + e.getMessage(), e);
            }
        }
    }

    /**
     * Stages a model with its large initializers moved to an external data file: the data file, then the model, so
     * that the commit places the data before the model that points at it.
     *
     * @param files the staged write
     * @param model the model; its initializers must hold their data in {@code raw_data} to be moved
     * @param target the model file
     * @param externalName the external file's name, relative to the model's folder
     * @param thresholdBytes the smallest initializer moved out
     * @return the external data file
     * @throws InvalidArgumentException when {@code externalName} escapes the folder or names the model file
     * @throws OrtexException when a file cannot be written, naming it
     */
    public static Path stage(StagedFiles files, ModelProto model, Path target, String externalName,
                             long thresholdBytes) {
        Path modelFile = target.toAbsolutePath().normalize();
        Path dataFile;
        try {
            dataFile = ExternalData.resolveInside(modelFile.getParent(), externalName, "external data file");
        } catch (OrtexException e) {
            throw new InvalidArgumentException(e.getMessage());
        }
        if (dataFile.equals(modelFile)) {
            throw new InvalidArgumentException("external data file " + Names.quote(externalName) + " is the model file "
                    + target + " itself");
        }
        GraphProto.Builder graph = model.getGraph().toBuilder();
        files.add(dataFile, out -> moveRawData(graph, externalName, thresholdBytes, out));
        ModelProto updated = model.toBuilder().setGraph(graph).build();
        files.add(modelFile, updated::writeTo);
        return dataFile;
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
        try (StagedFiles files = StagedFiles.replacing()) {
            files.add(target, content);
            files.commit();
        }
    }

    private static StringStringEntryProto entry(String key, String value) {
        return StringStringEntryProto.newBuilder().setKey(key).setValue(value).build();
    }
}
