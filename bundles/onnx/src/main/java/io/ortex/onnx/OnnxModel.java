package io.ortex.onnx;

import io.ortex.api.ElementType;
import io.ortex.api.ErrorCode;
import io.ortex.api.InvalidModelException;
import io.ortex.api.Names;
import io.ortex.api.NotImplementedException;
import io.ortex.api.ResourceLimits;
import io.ortex.api.Tensor;
import io.ortex.api.spi.ExternalDataInfo;
import io.ortex.api.spi.ValueView;
import io.ortex.onnx.proto.Onnx.GraphProto;
import io.ortex.onnx.proto.Onnx.ModelProto;
import io.ortex.onnx.proto.Onnx.OperatorSetIdProto;
import io.ortex.onnx.proto.Onnx.StringStringEntryProto;
import io.ortex.onnx.proto.Onnx.TensorProto;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * A loaded and validated ONNX model: the message, where it came from, its opset imports and metadata, and its
 * main {@link Graph}. Created by {@link ModelReader}; thread safe, and immutable but for
 * {@link #releaseInlineData}, which changes where initializer data is read from, never what it is.
 */
public final class OnnxModel {
    /** Below this many bytes an initializer's data stays in memory when the rest is released. */
    static final int RELEASE_THRESHOLD = 1 << 16;

    private volatile ModelProto proto;
    private final Path path;
    private final Path externalFolder;
    private final String description;
    private final Map<String, Integer> opsets;
    private final Map<String, String> metadata;
    private final Graph graph;
    private final ResourceLimits limits;
    private long initializerBytes;
    /** The initializer data read from the model file when needed; shared with the models rewritten from this. */
    private final DataLeftInFile leftInFile;

    OnnxModel(ModelProto proto, Path path, Path externalFolder, ResourceLimits limits, DataLeftInFile leftInFile) {
        this.proto = proto;
        this.leftInFile = leftInFile != null ? leftInFile : new DataLeftInFile(path);
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
        Tensor again = decodeReleased(t);
        if (again != null) {
            return again;
        }
        if (ExternalData.isExternal(t)) {
            return ExternalData.read(t, ExternalData.locate(t, externalFolder, description));
        }
        return TensorCodec.fromProto(t);
    }

    /**
     * Lets go of the in-memory copy of the main graph's larger initializers that the model file holds inline, once
     * a session has compiled them: each is then read again from its place in the file when it is asked for (when a
     * session moves to other EPs, say), as external data would be. Only data whose bytes in the file are checked to
     * be the bytes in memory is released. The file stays open while the model is reachable, so the data can still be
     * read after the path is deleted or replaced by another file; a file that changes size is refused. A model read
     * from bytes keeps everything. Safe to call more than once and from several threads.
     *
     * @return the number of bytes released
     */
    public long releaseInlineData() {
        if (path == null || externalFolder == null || !externalFolder.equals(path.getParent())) {
            return 0;
        }
        synchronized (leftInFile) {
            return release();
        }
    }

    private long release() {
        List<Value> candidates = new ArrayList<>();
        for (ValueView v : graph.initializers()) {
            TensorProto t = ((Value) v).initializerProto();
            if (!ExternalData.isExternal(t) && t.getRawData().size() >= RELEASE_THRESHOLD) {
                candidates.add((Value) v);
            }
        }
        if (candidates.isEmpty()) {
            return 0;
        }
        Map<String, TensorProto> replaced = new HashMap<>();
        FileChannel ch = null;
        try {
            ch = leftInFile.openForRelease();
            if (ch == null) {
                return 0;
            }
            Map<String, InlineData.Range> ranges = InlineData.locate(ch);
            for (Value v : candidates) {
                TensorProto t = v.initializerProto();
                InlineData.Range r = ranges.get(t.getName());
                if (r != null && InlineData.holds(ch, r, t.getRawData())) {
                    TensorProto external = pointingIntoFile(t, path, r);
                    replaced.put(t.getName(), external);
                    leftInFile.add(external, r);
                }
            }
            if (!replaced.isEmpty()) {
                leftInFile.adopt(ch);
            }
        } catch (IOException e) {
            // the file cannot be read again now: keep everything in memory
            replaced.clear();
        } finally {
            if (ch != null && !leftInFile.isAdopted(ch)) {
                DataLeftInFile.Closer.close(ch);
            }
        }
        if (replaced.isEmpty()) {
            return 0;
        }
        long bytes = 0;
        for (Value v : candidates) {
            TensorProto t = replaced.get(v.name());
            if (t != null) {
                bytes += v.initializerProto().getRawData().size();
                v.setInitializer(t);
            }
        }
        GraphProto.Builder g = graph.proto().toBuilder();
        for (int i = 0; i < g.getInitializerCount(); i++) {
            TensorProto t = replaced.get(g.getInitializer(i).getName());
            if (t != null) {
                g.setInitializer(i, t);
            }
        }
        graph.replaceProto(g.build());
        proto = proto.toBuilder().setGraph(graph.proto()).build();
        return bytes;
    }

    /** A tensor message like {@code t}, its data an external range of the model file. */
    static TensorProto pointingIntoFile(TensorProto t, Path path, InlineData.Range r) {
        return t.toBuilder().clearRawData().clearExternalData()
                .setDataLocation(TensorProto.DataLocation.EXTERNAL)
                .addExternalData(entry("location", path.getFileName().toString()))
                .addExternalData(entry("offset", Long.toString(r.offset())))
                .addExternalData(entry("length", Long.toString(r.length())))
                .build();
    }

    private static StringStringEntryProto entry(String key, String value) {
        return StringStringEntryProto.newBuilder().setKey(key).setValue(value).build();
    }

    /**
     * Reads released data again through the file opened when it was released, which still holds the bytes after the
     * path is deleted or replaced; or returns {@code null} when {@code t} was not released.
     */
    private Tensor decodeReleased(TensorProto t) {
        InlineData.Range r = leftInFile.range(t);
        if (r == null) {
            return null;
        }
        FileChannel ch = leftInFile.channel();
        String what = description + ": initializer " + Names.quote(t.getName());
        try {
            if (ch.size() != leftInFile.size()) {
                throw new InvalidModelException(what + " cannot be read again: the file changed size after its "
                        + "session was created; create the session anew");
            }
        } catch (IOException e) {
            throw new InvalidModelException(ErrorCode.NO_SUCH_FILE, what + " cannot be read again: "
                    + e.getMessage(), e);
        }
        return ExternalData.read(t, inFile(r), ch);
    }

    private ExternalDataInfo inFile(InlineData.Range r) {
        return new ExternalDataInfo(leftInFile.path(), r.offset(), r.length());
    }

    /**
     * Tells whether a tensor's data is read from this model's own file when needed rather than kept in memory: its
     * message then names the model file as its external data.
     *
     * @param t a tensor message of this model
     * @return true when its data is left in the model file
     */
    public boolean isLeftInModelFile(TensorProto t) {
        return leftInFile.range(t) != null;
    }

    /**
     * Maps a tensor's data read-only when it lies in a file: a range of the model file its data was left in (through
     * the file kept open, so a path deleted or replaced since does not matter), or its external data file. See
     * {@link ValueView#mappedData()}.
     *
     * @param t a tensor message of this model
     * @return the little-endian data, or empty when it is held in memory, or the file changed size or cannot be
     *     mapped
     */
    public Optional<ByteBuffer> map(TensorProto t) {
        try {
            InlineData.Range r = leftInFile.range(t);
            if (r != null) {
                FileChannel ch = leftInFile.channel();
                return ch.size() != leftInFile.size() ? Optional.empty() : map(ch, r.offset(), r.length());
            }
            if (!ExternalData.isExternal(t)) {
                return Optional.empty();
            }
            ExternalDataInfo info = ExternalData.locate(t, externalFolder, description);
            try (FileChannel ch = FileChannel.open(info.file(), StandardOpenOption.READ)) {
                return map(ch, info.offset(), info.length());
            }
        } catch (IOException | UnsupportedOperationException | InvalidModelException e) {
            // the data is decoded into memory instead, which names what is wrong with it
            return Optional.empty();
        }
    }

    private static Optional<ByteBuffer> map(FileChannel ch, long offset, long length) throws IOException {
        if (offset < 0 || length < 0 || length > Integer.MAX_VALUE || offset + length > ch.size()) {
            return Optional.empty();
        }
        return Optional.of(ch.map(FileChannel.MapMode.READ_ONLY, offset, length).order(ByteOrder.LITTLE_ENDIAN));
    }

    /** Gets the data this model and the models rewritten from it read from the model file. */
    DataLeftInFile leftInFile() {
        return leftInFile;
    }

    Optional<ExternalDataInfo> externalInfo(TensorProto t) {
        InlineData.Range r = leftInFile.range(t);
        if (r != null) {
            return Optional.of(inFile(r));
        }
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
                InlineData.Range r = leftInFile.range(t);
                ExternalDataInfo info = r != null ? inFile(r) : ExternalData.locate(t, externalFolder, description);
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
