package io.ortex.runtime.internal.epcontext;

import io.ortex.api.ErrorCode;
import io.ortex.api.InvalidArgumentException;
import io.ortex.api.OrtexException;
import io.ortex.onnx.ExternalData;
import io.ortex.onnx.ModelWriter;
import io.ortex.onnx.proto.Onnx.ModelProto;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * Where a compiled model goes: a file, bytes or a stream of chunks. Context binaries (embed mode 0) and the
 * external initializers file go into the model's folder (for bytes and streams, the folder of
 * {@code ep.context_file_path}). Every file is written to a temporary name and moved into place, binaries before the
 * model; when anything fails, the files this output already moved into place are removed again. Not thread safe; one
 * output serves one compilation.
 */
public final class EpContextOutput {
    /** The size of the chunks a stream output receives. */
    public static final int CHUNK_BYTES = 1 << 16;

    private final Path file;
    private final Consumer<ByteBuffer> chunks;
    private final Path folder;
    private byte[] bytes;

    private EpContextOutput(Path file, Consumer<ByteBuffer> chunks, Path folder) {
        this.file = file == null ? null : file.toAbsolutePath().normalize();
        this.chunks = chunks;
        this.folder = folder;
    }

    /**
     * An output to a file.
     *
     * @param file the compiled model's path; it must not be a folder
     * @return the output
     * @throws InvalidArgumentException when {@code file} is a folder or has no file name
     */
    public static EpContextOutput toFile(Path file) {
        if (file.getFileName() == null || Files.isDirectory(file)) {
            throw new InvalidArgumentException("the compiled model's path " + file + " must name a file, not a folder");
        }
        return new EpContextOutput(file, null, null);
    }

    /**
     * An output to bytes, read with {@link #bytes()} afterwards.
     *
     * @param folder where context binaries go, or {@code null} when payloads must be embedded
     * @return the output
     */
    public static EpContextOutput toBytes(Path folder) {
        return new EpContextOutput(null, null, folder);
    }

    /**
     * An output to a stream of chunks.
     *
     * @param chunks the consumer
     * @param folder where context binaries go, or {@code null} when payloads must be embedded
     * @return the output
     */
    public static EpContextOutput toStream(Consumer<ByteBuffer> chunks, Path folder) {
        return new EpContextOutput(null, chunks, folder);
    }

    /**
     * Gets the target file.
     *
     * @return the file, or {@code null} for bytes and streams
     */
    public Path file() {
        return file;
    }

    /**
     * Gets the folder where context binaries go: the model file's folder, else the folder given for bytes and
     * streams.
     *
     * @return the folder, or {@code null} when payloads must be embedded
     */
    public Path folder() {
        return file != null ? file.getParent() : folder;
    }

    /**
     * Gets the start of context binary names: the model file's name without its extension, or {@code model}.
     *
     * @return the stem
     */
    public String stem() {
        if (file == null) {
            return "model";
        }
        String name = file.getFileName().toString();
        int dot = name.lastIndexOf('.');
        return dot > 0 ? name.substring(0, dot) : name;
    }

    /**
     * Gets the serialized model of a bytes output, after {@link #write}.
     *
     * @return the bytes, or {@code null}
     */
    public byte[] bytes() {
        return bytes;
    }

    /**
     * Writes a compiled model.
     *
     * @param built the model and its binaries
     * @param externalInitializersFile the external initializers file name, or {@code null} to embed them
     * @return the files moved into place, model last
     * @throws OrtexException when something cannot be written; nothing written stays behind
     */
    public List<Path> write(EpContextModelBuilder.Built built, String externalInitializersFile) {
        return write(built, externalInitializersFile, null);
    }

    /**
     * Writes a compiled model whose initializers an {@link io.ortex.api.InitializerPlacement} placed: its external
     * initializers file (when an initializer went there) after the context binaries and before the model.
     *
     * @param built the model and its binaries
     * @param placed the model with its initializers placed, which replaces {@code built}'s model
     * @return the files moved into place, model last
     * @throws OrtexException when something cannot be written; nothing written stays behind
     */
    List<Path> write(EpContextModelBuilder.Built built, InitializerPlacer.Placed placed) {
        return write(built, null, placed);
    }

    private List<Path> write(EpContextModelBuilder.Built built, String externalInitializersFile,
                             InitializerPlacer.Placed placed) {
        Path dir = file != null ? file.getParent() : folder;
        if (dir == null && (!built.binaries().isEmpty() || externalInitializersFile != null)) {
            throw new InvalidArgumentException("a compiled model written to "
                    + (chunks != null ? "a stream" : "bytes") + " keeps its payloads in separate files only when "
                    + io.ortex.api.SessionOptions.EP_CONTEXT_FILE_PATH + " says where the model will live; embed them"
                    + " (" + io.ortex.api.SessionOptions.EP_CONTEXT_EMBED_MODE + "=1) or set that path");
        }
        List<Path> written = new ArrayList<>();
        boolean done = false;
        try {
            for (Map.Entry<String, Map<String, byte[]>> b : built.binaries().entrySet()) {
                Path target = ExternalData.resolveInside(dir, b.getKey(), "context binary");
                ContextBinaryFile.write(target, b.getValue());
                written.add(target);
            }
            ModelProto model = built.model();
            if (placed != null) {
                model = placed.model();
                if (placed.dataFile() != null) {
                    Path data = ExternalData.resolveInside(dir, placed.dataFile(), "external initializers file");
                    ModelWriter.writeAtomically(data, placed::writeData);
                    written.add(data);
                }
            }
            if (file != null) {
                if (externalInitializersFile != null) {
                    ModelWriter.write(model, file, externalInitializersFile, 0);
                    written.add(file.getParent().resolve(externalInitializersFile).normalize());
                } else {
                    ModelWriter.write(model, file);
                }
                written.add(file);
            } else if (externalInitializersFile != null) {
                throw new InvalidArgumentException(io.ortex.api.SessionOptions
                        .EP_CONTEXT_MODEL_EXTERNAL_INITIALIZERS_FILE_NAME
                                + " needs the compiled model to go to a file");
            } else if (chunks != null) {
                stream(model);
            } else {
                bytes = model.toByteArray();
            }
            done = true;
            return written;
        } finally {
            if (!done) {
                for (Path p : written) {
                    try {
                        Files.deleteIfExists(p);
                    } catch (IOException ignored) {
                        // best effort: the compilation already failed and says why
                    }
                }
            }
        }
    }

    private void stream(ModelProto model) {
        try (OutputStream out = new ChunkStream(chunks)) {
            model.writeTo(out);
        } catch (IOException e) {
            throw new OrtexException(ErrorCode.FAIL, "cannot stream the compiled model: " + e.getMessage(), e);
        }
    }

    /** Cuts what is written into chunks of {@link #CHUNK_BYTES} and hands each over once full (and the rest last). */
    private static final class ChunkStream extends OutputStream {
        private final Consumer<ByteBuffer> sink;
        private final ByteArrayOutputStream buffer = new ByteArrayOutputStream(CHUNK_BYTES);

        ChunkStream(Consumer<ByteBuffer> sink) {
            this.sink = sink;
        }

        @Override
        public void write(int b) {
            buffer.write(b);
            if (buffer.size() >= CHUNK_BYTES) {
                emit();
            }
        }

        @Override
        public void write(byte[] b, int off, int len) {
            while (len > 0) {
                int n = Math.min(len, CHUNK_BYTES - buffer.size());
                buffer.write(b, off, n);
                off += n;
                len -= n;
                if (buffer.size() >= CHUNK_BYTES) {
                    emit();
                }
            }
        }

        private void emit() {
            if (buffer.size() > 0) {
                sink.accept(ByteBuffer.wrap(buffer.toByteArray()).asReadOnlyBuffer());
                buffer.reset();
            }
        }

        @Override
        public void close() {
            emit();
        }
    }
}
