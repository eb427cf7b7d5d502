package io.ortex.onnx;

import com.google.protobuf.CodedInputStream;
import com.google.protobuf.InvalidProtocolBufferException;
import io.ortex.api.ErrorCode;
import io.ortex.api.InvalidModelException;
import io.ortex.api.NotImplementedException;
import io.ortex.api.ResourceLimits;
import io.ortex.onnx.proto.Onnx.GraphProto;
import io.ortex.onnx.proto.Onnx.ModelProto;
import io.ortex.onnx.proto.Onnx.OperatorSetIdProto;
import io.ortex.onnx.proto.Onnx.TensorProto;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Map;

/**
 * Reads ONNX model files and bytes into validated {@link OnnxModel}s. Everything that can be checked before running
 * is checked here, with errors that name the file and the culprit: not a protobuf or truncated, an IR or opset
 * version Ortex does not know, a cycle, a value nobody produces, an initializer whose data does not fit its shape, a
 * shape too large to allocate, nesting too deep.
 */
public final class ModelReader {
    /** The oldest IR version accepted. */
    public static final long MIN_IR_VERSION = 3;
    /** The newest IR version accepted. */
    public static final long MAX_IR_VERSION = 13;
    /** The newest opset of the default ONNX domain accepted. */
    public static final int MAX_ONNX_OPSET = 27;
    /** Protobuf nesting allowed while parsing (subgraphs nest messages several levels per graph). */
    static final int PROTOBUF_RECURSION_LIMIT = 400;

    private ModelReader() {
    }

    /**
     * Reads a model file; external data is resolved against the file's folder.
     *
     * @param file the {@code .onnx} file
     * @return the model
     * @throws InvalidModelException when the file is missing or not a valid model
     */
    public static OnnxModel read(Path file) {
        return read(file, ResourceLimits.DEFAULTS);
    }

    /**
     * Reads a model file within limits; external data is resolved against the file's folder.
     *
     * @param file the {@code .onnx} file
     * @param limits the limits the model must keep
     * @return the model
     * @throws InvalidModelException when the file is missing, not a valid model, or beyond a limit
     */
    public static OnnxModel read(Path file, ResourceLimits limits) {
        Path absolute = file.toAbsolutePath();
        ModelProto proto;
        try (InputStream in = Files.newInputStream(absolute)) {
            checkSize(file, Files.size(absolute), limits);
            proto = parse(CodedInputStream.newInstance(new SmallReads(in)), "model " + file, limits);
        } catch (NoSuchFileException e) {
            throw new InvalidModelException(ErrorCode.NO_SUCH_FILE, "model " + file + " does not exist", e);
        } catch (IOException e) {
            if (Files.isDirectory(absolute)) {
                throw new InvalidModelException(ErrorCode.NO_SUCH_FILE, "model " + file
                        + " is a folder, not a model file", e);
            }
            throw new InvalidModelException(ErrorCode.NO_SUCH_FILE, "model " + file + " cannot be read: "
                    + e.getMessage(), e);
        }
        return validate(proto, file, absolute.getParent(), limits, null);
    }

    /**
     * Reads a model file within limits, leaving the larger initializers' data in the file: their bytes are never
     * held in memory, and each is read from the file (kept open) when it is decoded, as {@link
     * OnnxModel#releaseInlineData} does after the fact. For a model that is only run, not written out again: its
     * message then names the model file as those initializers' external data. A model whose layout is unusual (two
     * graph fields, an initializer with several data fields) is read whole.
     *
     * @param file the {@code .onnx} file
     * @param limits the limits the model must keep
     * @return the model
     * @throws InvalidModelException when the file is missing, not a valid model, or beyond a limit
     */
    public static OnnxModel readLeavingDataInFile(Path file, ResourceLimits limits) {
        return readLeavingDataInFile(file, limits, OnnxModel.RELEASE_THRESHOLD);
    }

    /** As {@link #readLeavingDataInFile(Path, ResourceLimits)}, leaving data of at least {@code threshold} bytes. */
    static OnnxModel readLeavingDataInFile(Path file, ResourceLimits limits, int threshold) {
        Path absolute = file.toAbsolutePath();
        FileChannel ch;
        try {
            ch = FileChannel.open(absolute, StandardOpenOption.READ);
        } catch (IOException e) {
            return read(file, limits);
        }
        DataLeftInFile left = new DataLeftInFile(absolute);
        try {
            checkSize(file, ch.size(), limits);
            InlineData.Elision elision = InlineData.plan(ch, threshold);
            if (elision == null) {
                return read(file, limits);
            }
            ModelProto proto;
            try (InputStream in = elision.open(ch)) {
                proto = parse(CodedInputStream.newInstance(in), "model " + file, limits);
            }
            ModelProto pointing = pointIntoFile(proto, elision, absolute, left);
            if (pointing == null) {
                return read(file, limits);
            }
            left.adopt(ch);
            return validate(pointing, file, absolute.getParent(), limits, left);
        } catch (IOException e) {
            // read whole, which names what is wrong with the file
            return read(file, limits);
        } catch (RuntimeException e) {
            DataLeftInFile.Closer.close(ch);
            throw e;
        } finally {
            if (!left.isAdopted(ch)) {
                DataLeftInFile.Closer.close(ch);
            }
        }
    }

    /**
     * Gives the cut initializers of an elided model their data as ranges of the model file, or returns {@code null}
     * when one of them came out of parsing with data after all.
     */
    private static ModelProto pointIntoFile(ModelProto proto, InlineData.Elision elision, Path file,
                                            DataLeftInFile left) {
        GraphProto.Builder g = proto.getGraph().toBuilder();
        for (Map.Entry<Integer, InlineData.Range> e : elision.cut().entrySet()) {
            int i = e.getKey();
            if (i >= g.getInitializerCount()) {
                return null;
            }
            TensorProto t = g.getInitializer(i);
            if (t.hasRawData() || ExternalData.isExternal(t) || t.getExternalDataCount() > 0) {
                return null;
            }
            TensorProto pointing = OnnxModel.pointingIntoFile(t, file, e.getValue());
            left.add(pointing, e.getValue());
            g.setInitializer(i, pointing);
        }
        return proto.toBuilder().setGraph(g).build();
    }

    private static void checkSize(Path file, long size, ResourceLimits limits) {
        if (size > limits.modelBytes()) {
            throw new InvalidModelException("model " + file + " is "
                    + ResourceLimits.bytes(size) + ", more than the limit of "
                    + ResourceLimits.bytes(limits.modelBytes()) + " (" + ResourceLimits.MODEL_BYTES + ")");
        }
    }

    /**
     * Reads a model from bytes.
     *
     * @param bytes the serialized {@code ModelProto}
     * @param externalFolder the folder external data is resolved against, or {@code null} for none
     * @return the model
     */
    public static OnnxModel read(byte[] bytes, Path externalFolder) {
        return read(bytes, externalFolder, ResourceLimits.DEFAULTS);
    }

    /**
     * Reads a model from bytes within limits.
     *
     * @param bytes the serialized {@code ModelProto}
     * @param externalFolder the folder external data is resolved against, or {@code null} for none
     * @param limits the limits the model must keep
     * @return the model
     */
    public static OnnxModel read(byte[] bytes, Path externalFolder, ResourceLimits limits) {
        if (bytes.length > limits.modelBytes()) {
            throw new InvalidModelException("model (from bytes) is "
                    + ResourceLimits.bytes(bytes.length) + ", more than the limit of "
                    + ResourceLimits.bytes(limits.modelBytes()) + " (" + ResourceLimits.MODEL_BYTES + ")");
        }
        ModelProto proto;
        try {
            proto = parse(CodedInputStream.newInstance(bytes), "model (from bytes)", limits);
        } catch (IOException e) {
            throw new InvalidModelException(ErrorCode.INVALID_PROTOBUF, "model (from bytes) cannot be parsed: "
                    + e.getMessage(), e);
        }
        return validate(proto, null, externalFolder == null ? null : externalFolder.toAbsolutePath(), limits, null);
    }

    /**
     * Replaces a model's message by a rewritten one (an optimized graph, say), checked as on reading, keeping where
     * the model came from and the folder its external data is resolved against.
     *
     * @param model the model read before
     * @param proto the rewritten message
     * @return the model
     */
    public static OnnxModel rewrite(OnnxModel model, ModelProto proto) {
        return validate(proto, model.path().orElse(null), model.externalFolder().orElse(null), model.limits(),
                model.leftInFile());
    }

    /**
     * Makes a model of part of another (nodes to evaluate ahead of time, say): checked as on reading, resolving
     * external data as the other does and reading the data it left in its file, but with no file of its own.
     *
     * @param model the model the part comes from
     * @param part the part's message, whose initializers are the other model's messages
     * @return the model
     */
    public static OnnxModel part(OnnxModel model, ModelProto part) {
        return validate(part, null, model.externalFolder().orElse(null), model.limits(), model.leftInFile());
    }

    /**
     * Hands the parser at most 1 MiB per read. Protobuf reads a large field (a weight's {@code raw_data}) in one
     * call, and the JDK copies a file read through a native buffer of the size asked for, which would briefly double
     * the largest weight outside the heap.
     */
    private static final class SmallReads extends FilterInputStream {
        private static final int MAX_READ = 1 << 20;

        SmallReads(InputStream in) {
            super(in);
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            return in.read(b, off, Math.min(len, MAX_READ));
        }
    }

    private static ModelProto parse(CodedInputStream in, String what, ResourceLimits limits) throws IOException {
        // each level of subgraphs nests about six messages (graph, node, attribute, graph, ...)
        in.setRecursionLimit((int) Math.max(PROTOBUF_RECURSION_LIMIT, 8L * limits.nestingDepth() + 64));
        in.setSizeLimit(Integer.MAX_VALUE);
        try {
            return ModelProto.parseFrom(in);
        } catch (InvalidProtocolBufferException e) {
            String reason = e.getMessage() != null && e.getMessage().contains("too many levels of nesting")
                    ? "it nests messages too deeply" : "it is not a valid ONNX protobuf or it is truncated ("
                    + e.getMessage() + ")";
            throw new InvalidModelException(ErrorCode.INVALID_PROTOBUF, what + " cannot be parsed: " + reason, e);
        }
    }

    private static OnnxModel validate(ModelProto proto, Path file, Path folder, ResourceLimits limits,
                                      DataLeftInFile leftInFile) {
        String what = file == null ? "model (from bytes)" : "model " + file;
        if (!proto.hasIrVersion()) {
            throw new InvalidModelException(ErrorCode.INVALID_PROTOBUF, what
                    + " has no ir_version: it is not an ONNX model", null);
        }
        long ir = proto.getIrVersion();
        if (ir < MIN_IR_VERSION || ir > MAX_IR_VERSION) {
            throw new NotImplementedException(what + " has IR version " + ir + "; Ortex reads IR versions "
                    + MIN_IR_VERSION + " to " + MAX_IR_VERSION);
        }
        if (!proto.hasGraph()) {
            throw new InvalidModelException(what + " has no graph");
        }
        boolean onnxDomain = false;
        for (OperatorSetIdProto op : proto.getOpsetImportList()) {
            String domain = op.getDomain();
            if (domain.isEmpty() || "ai.onnx".equals(domain)) {
                onnxDomain = true;
                if (op.getVersion() < 1 || op.getVersion() > MAX_ONNX_OPSET) {
                    throw new NotImplementedException(what + " imports ONNX opset " + op.getVersion()
                            + "; Ortex supports opsets 1 to " + MAX_ONNX_OPSET);
                }
            }
        }
        if (!onnxDomain && proto.getOpsetImportCount() == 0) {
            throw new InvalidModelException(what + " has no opset_import");
        }
        return new OnnxModel(proto, file == null ? null : file.toAbsolutePath(), folder, limits, leftInFile);
    }
}
