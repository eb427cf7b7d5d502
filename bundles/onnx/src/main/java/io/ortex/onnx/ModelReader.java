package io.ortex.onnx;

import com.google.protobuf.CodedInputStream;
import com.google.protobuf.InvalidProtocolBufferException;
import io.ortex.api.ErrorCode;
import io.ortex.api.InvalidModelException;
import io.ortex.api.NotImplementedException;
import io.ortex.api.ResourceLimits;
import io.ortex.onnx.proto.Onnx.ModelProto;
import io.ortex.onnx.proto.Onnx.OperatorSetIdProto;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;

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
            long size = Files.size(absolute);
            if (size > limits.modelBytes()) {
                throw new InvalidModelException("model " + file + " is "
                        + ResourceLimits.bytes(size) + ", more than the limit of "
                        + ResourceLimits.bytes(limits.modelBytes()) + " (" + ResourceLimits.MODEL_BYTES + ")");
            }
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
        return validate(proto, file, absolute.getParent(), limits);
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
        return validate(proto, null, externalFolder == null ? null : externalFolder.toAbsolutePath(), limits);
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
        return validate(proto, model.path().orElse(null), model.externalFolder().orElse(null), model.limits());
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

    private static OnnxModel validate(ModelProto proto, Path file, Path folder, ResourceLimits limits) {
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
        return new OnnxModel(proto, file == null ? null : file.toAbsolutePath(), folder, limits);
    }
}
