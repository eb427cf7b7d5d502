package io.ortex.onnx;

import io.ortex.api.ElementType;
import io.ortex.api.InvalidModelException;
import io.ortex.api.Names;
import io.ortex.api.NotImplementedException;
import io.ortex.api.ResourceLimits;
import io.ortex.api.Tensor;
import io.ortex.api.spi.ExternalDataInfo;
import io.ortex.onnx.proto.Onnx.ModelProto;
import io.ortex.onnx.proto.Onnx.OperatorSetIdProto;
import io.ortex.onnx.proto.Onnx.StringStringEntryProto;
import io.ortex.onnx.proto.Onnx.TensorProto;
import java.nio.file.Path;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * A loaded and validated ONNX model: the message, where it came from, its opset imports and metadata, and its
 * main {@link Graph}. Created by {@link ModelReader}; immutable and thread safe.
 */
public final class OnnxModel {
    private final ModelProto proto;
    private final Path path;
    private final Path externalFolder;
    private final String description;
    private final Map<String, Integer> opsets;
    private final Map<String, String> metadata;
    private final Graph graph;
    private final ResourceLimits limits;
    private long initializerBytes;

    OnnxModel(ModelProto proto, Path path, Path externalFolder, ResourceLimits limits) {
        this.proto = proto;
        this.path = path;
        this.externalFolder = externalFolder;
        this.limits = limits;
        this.description = path == null ? "model (from bytes)" : "model " + path;
        Map<String, Integer> o = new LinkedHashMap<>();
        for (OperatorSetIdProto op : proto.getOpsetImportList()) {
            String domain = "ai.onnx".equals(op.getDomain()) ? "" : op.getDomain();
            o.put(domain, (int) op.getVersion());
        }
        this.opsets = Collections.unmodifiableMap(o);
        Map<String, String> m = new TreeMap<>();
        for (StringStringEntryProto e : proto.getMetadataPropsList()) {
            checkString(e.getKey(), "a metadata key");
            checkString(e.getValue(), "metadata entry " + Names.quote(e.getKey()));
            m.put(e.getKey(), e.getValue());
        }
        this.metadata = Collections.unmodifiableMap(m);
        this.graph = Graph.build(this, proto.getGraph(), null, null, 0);
    }

    /**
     * Gets the limits the model was read within; a session applies them to its runs too.
     *
     * @return the limits
     */
    public ResourceLimits limits() {
        return limits;
    }

    /**
     * Refuses a string of the model longer than {@link ResourceLimits#stringLength()}.
     *
     * @param text the string
     * @param what what it is, for the message
     * @throws InvalidModelException when it is too long
     */
    void checkString(String text, String what) {
        if (text.length() > limits.stringLength()) {
            throw new InvalidModelException(description + ": " + what + " has "
                    + text.length() + " characters, more than the limit of " + limits.stringLength() + " ("
                    + ResourceLimits.STRING_LENGTH + "); it starts "
                    + Names.quote(text.substring(0, Math.min(64, text.length()))));
        }
    }

    /**
     * Gets the model message.
     *
     * @return the message
     */
    public ModelProto proto() {
        return proto;
    }

    /**
     * Gets the file the model was read from.
     *
     * @return the path, or empty when it was loaded from bytes
     */
    public Optional<Path> path() {
        return Optional.ofNullable(path);
    }

    /**
     * Gets the folder external data is resolved against.
     *
     * @return the folder, or empty when the model cannot use external data
     */
    public Optional<Path> externalFolder() {
        return Optional.ofNullable(externalFolder);
    }

    /**
     * Gets the main graph.
     *
     * @return the graph
     */
    public Graph graph() {
        return graph;
    }

    /**
     * Gets the IR version.
     *
     * @return the IR version
     */
    public long irVersion() {
        return proto.getIrVersion();
    }

    /**
     * Gets the opset imports, domain ({@code ""} for ONNX) to version.
     *
     * @return the imports
     */
    public Map<String, Integer> opsetImports() {
        return opsets;
    }

    /**
     * Gets the metadata entries.
     *
     * @return the metadata, sorted by key
     */
    public Map<String, String> metadata() {
        return metadata;
    }

    /**
     * Describes the model for messages: {@code model <path>} or {@code model (from bytes)}.
     *
     * @return the description
     */
    public String describe() {
        return description;
    }

    /**
     * Decodes a tensor of this model, reading external data when it has some.
     *
     * @param t the tensor message
     * @return the tensor
     */
    public Tensor decode(TensorProto t) {
        if (ExternalData.isExternal(t)) {
            return ExternalData.read(t, ExternalData.locate(t, externalFolder, description));
        }
        return TensorCodec.fromProto(t);
    }

    Optional<ExternalDataInfo> externalInfo(TensorProto t) {
        return ExternalData.isExternal(t)
                ? Optional.of(ExternalData.locate(t, externalFolder, description)) : Optional.empty();
    }

    /**
     * Checks an initializer's data against its type and shape without decoding it: the byte count of
     * {@code raw_data} or of the external range, or the element count of the typed field ONNX assigns to the type.
     * Shapes too large to allocate are refused here, before anything is allocated.
     */
    void checkInitializer(TensorProto t) {
        String what = description + ": initializer " + Names.quote(t.getName());
        try {
            ElementType type = TensorCodec.elementType(t);
            long[] shape = TensorCodec.shape(t);
            int count = TensorCodec.elementCount(t, shape);
            long bytes = TensorCodec.byteCount(type, count);
            if (count > limits.tensorElements()) {
                throw new InvalidModelException(what + " has " + count
                        + " elements, more than the limit of " + limits.tensorElements() + " ("
                        + ResourceLimits.TENSOR_ELEMENTS + ")");
            }
            long held = type == ElementType.STRING ? stringBytes(t) : bytes;
            initializerBytes += held;
            if (initializerBytes > limits.initializerBytes()) {
                throw new InvalidModelException("its initializers take more than "
                        + ResourceLimits.bytes(limits.initializerBytes()) + " (" + ResourceLimits.INITIALIZER_BYTES
                        + "), reached at initializer " + Names.quote(t.getName()) + " of "
                        + ResourceLimits.bytes(held));
            }
            String fits = " of type " + type + " and shape " + Tensor.shapeString(shape) + " needs ";
            if (ExternalData.isExternal(t)) {
                TensorCodec.requireNumeric(t.getName(), type, "an external file");
                ExternalDataInfo info = ExternalData.locate(t, externalFolder, description);
                if (info.length() != bytes) {
                    throw new InvalidModelException(what + fits + bytes + " bytes, its external data has "
                            + info.length());
                }
            } else if (t.hasRawData()) {
                TensorCodec.requireNumeric(t.getName(), type, "raw_data");
                if (t.getRawData().size() != bytes) {
                    throw new InvalidModelException(what + fits + bytes + " bytes of raw_data, found "
                            + t.getRawData().size());
                }
            } else {
                int found = TensorCodec.typedFieldCount(t, type);
                long entries = TensorCodec.typedFieldEntries(type, count);
                if (found != entries) {
                    throw new InvalidModelException(what + fits + entries + " entries in "
                            + TensorCodec.typedField(type) + ", found " + found);
                }
            }
        } catch (InvalidModelException e) {
            if (e.getMessage().startsWith(description)) {
                throw e;
            }
            throw new InvalidModelException(e.code(), description + ": " + e.getMessage(), e);
        } catch (NotImplementedException e) {
            throw new NotImplementedException(e.code(), description + ": " + e.getMessage(), e);
        }
    }

    /** The bytes of a string initializer's elements, refusing an element longer than the string limit. */
    private long stringBytes(TensorProto t) {
        long total = 0;
        for (int i = 0; i < t.getStringDataCount(); i++) {
            long size = t.getStringData(i).size();
            if (size > limits.stringLength()) {
                throw new InvalidModelException("initializer " + Names.quote(t.getName())
                        + " holds a string of " + size + " bytes, more than the limit of " + limits.stringLength()
                        + " (" + ResourceLimits.STRING_LENGTH + ")");
            }
            total += size + 8;
        }
        return total;
    }
}
