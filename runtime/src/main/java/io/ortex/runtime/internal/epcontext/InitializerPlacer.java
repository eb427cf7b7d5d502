package io.ortex.runtime.internal.epcontext;

import com.google.protobuf.ByteString;
import io.ortex.api.ElementType;
import io.ortex.api.InvalidArgumentException;
import io.ortex.api.InitializerPlacement;
import io.ortex.api.InitializerPlacement.Decision;
import io.ortex.api.Names;
import io.ortex.api.SessionOptions;
import io.ortex.api.spi.ExternalDataInfo;
import io.ortex.onnx.ExternalData;
import io.ortex.onnx.Graph;
import io.ortex.onnx.OnnxModel;
import io.ortex.onnx.TensorCodec;
import io.ortex.onnx.Value;
import io.ortex.onnx.proto.Onnx.GraphProto;
import io.ortex.onnx.proto.Onnx.ModelProto;
import io.ortex.onnx.proto.Onnx.StringStringEntryProto;
import io.ortex.onnx.proto.Onnx.TensorProto;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Applies an {@link InitializerPlacement} to a compiled model: asks it about each initializer the model keeps and
 * embeds the initializer, appends its data to the compiled model's external initializers file (each at an offset
 * aligned to {@link #ALIGNMENT} bytes), or points it at the source's external data. The model given must hold
 * every initializer's data in the message (as {@link EpContextModelBuilder} leaves it). Stateless.
 */
final class InitializerPlacer {
    /** External data offsets are aligned to this many bytes. */
    static final int ALIGNMENT = 64;

    private InitializerPlacer() {
    }

    /**
     * The placed model and the external initializers file to write with it.
     *
     * @param model the model, its initializers updated
     * @param dataFile the external initializers file relative to the model's folder, or {@code null} when no
     *     initializer went there
     * @param data the data file's content: each initializer's bytes in order, padded to {@link #ALIGNMENT}
     */
    record Placed(ModelProto model, String dataFile, List<ByteString> data) {
        /**
         * Writes the data file's content.
         *
         * @param out the stream
         * @throws IOException when writing fails
         */
        void writeData(OutputStream out) throws IOException {
            for (ByteString b : data) {
                b.writeTo(out);
            }
        }
    }

    /**
     * Places the initializers of a compiled model.
     *
     * @param source the source model, for where it kept each initializer
     * @param model the compiled model
     * @param placement the placement
     * @param folder the compiled model's folder, or {@code null} when it has none (bytes or a stream without a path)
     * @param modelFile the compiled model's file, or {@code null}
     * @param dataName the external initializers file's name, relative to {@code folder}
     * @return the placed model
     * @throws InvalidArgumentException when a decision cannot be carried out, naming the initializer
     */
    static Placed place(OnnxModel source, ModelProto model, InitializerPlacement placement, Path folder,
                        Path modelFile, String dataName) {
        Graph main = source.graph();
        Path base = folder == null ? null : folder.toAbsolutePath().normalize();
        GraphProto.Builder graph = model.getGraph().toBuilder();
        List<ByteString> data = new ArrayList<>();
        Set<Path> kept = new HashSet<>();
        long offset = 0;
        for (int i = 0; i < graph.getInitializerCount(); i++) {
            TensorProto t = graph.getInitializer(i);
            Value v = main.localValue(t.getName());
            ExternalDataInfo info = v == null ? null : v.externalData().orElse(null);
            InitializerPlacement.ExternalLocation from = info == null ? null
                    : new InitializerPlacement.ExternalLocation(info.file(), info.offset(), info.length());
            ElementType type = TensorCodec.elementType(t);
            long[] shape = TensorCodec.shape(t);
            Decision d = placement.place(new InitializerPlacement.Initializer(t.getName(), type,
                    Arrays.stream(shape).boxed().toList(), byteSize(t, type, shape), from));
            if (d == null) {
                throw new InvalidArgumentException("the initializer placement returned no decision for initializer '"
                        + t.getName() + "'");
            }
            String what = "initializer " + Names.quote(t.getName());
            switch (d) {
                case EMBED:
                    break;
                case KEEP_SOURCE: {
                    if (from == null) {
                        throw new InvalidArgumentException("the initializer placement keeps the source's external"
                                + " data of " + what + ", but the source embeds it");
                    }
                    Path file = from.file().toAbsolutePath().normalize();
                    if (base == null || !file.startsWith(base) || file.equals(base)) {
                        throw new InvalidArgumentException("the initializer placement keeps the source's external"
                                + " data of " + what + " in " + file + ", which is not inside the compiled model's"
                                + " folder " + (base == null ? "(none: the output is bytes or a stream)" : base)
                                + "; the compiled model could not reference it");
                    }
                    kept.add(file);
                    graph.setInitializer(i, external(t, relative(base, file), from.offset(), from.length()));
                    break;
                }
                default: {
                    if (base == null) {
                        throw new InvalidArgumentException("the initializer placement moves " + what + " to an"
                                + " external file, but the compiled model has no folder; compile to a file or set "
                                + SessionOptions.EP_CONTEXT_FILE_PATH);
                    }
                    if (type == ElementType.STRING) {
                        throw new InvalidArgumentException("the initializer placement moves " + what
                                + " to an external file, but string tensors cannot be stored externally");
                    }
                    ByteString raw = t.hasRawData() ? t.getRawData()
                            : ByteString.copyFrom(TensorCodec.toBytes(TensorCodec.fromProto(t)));
                    long padding = (ALIGNMENT - offset % ALIGNMENT) % ALIGNMENT;
                    if (padding > 0) {
                        data.add(ByteString.copyFrom(new byte[(int) padding]));
                        offset += padding;
                    }
                    data.add(raw);
                    graph.setInitializer(i, external(t, dataName, offset, raw.size()));
                    offset += raw.size();
                }
            }
        }
        if (data.isEmpty()) {
            return new Placed(model.toBuilder().setGraph(graph).build(), null, List.of());
        }
        Path target = ExternalData.resolveInside(base, dataName, "external initializers file");
        if (target.equals(modelFile == null ? null : modelFile.toAbsolutePath().normalize())
                || kept.contains(target)) {
            throw new InvalidArgumentException("the external initializers file " + target + " would replace "
                    + (kept.contains(target) ? "source external data the compiled model keeps referencing"
                    : "the compiled model itself") + "; name it otherwise with "
                    + SessionOptions.EP_CONTEXT_MODEL_EXTERNAL_INITIALIZERS_FILE_NAME);
        }
        return new Placed(model.toBuilder().setGraph(graph).build(), dataName, data);
    }

    private static long byteSize(TensorProto t, ElementType type, long[] shape) {
        if (t.hasRawData()) {
            return t.getRawData().size();
        }
        if (type == ElementType.STRING) {
            return t.getStringDataList().stream().mapToLong(ByteString::size).sum();
        }
        long count = 1;
        for (long d : shape) {
            count *= d;
        }
        return TensorCodec.byteCount(type, count);
    }

    private static String relative(Path base, Path file) {
        List<String> parts = new ArrayList<>();
        base.relativize(file).forEach(p -> parts.add(p.toString()));
        return String.join("/", parts);
    }

    private static TensorProto external(TensorProto t, String location, long offset, long length) {
        return t.toBuilder().clearRawData().clearFloatData().clearInt32Data().clearInt64Data().clearDoubleData()
                .clearUint64Data().clearStringData().setDataLocation(TensorProto.DataLocation.EXTERNAL)
                .clearExternalData().addExternalData(entry("location", location))
                .addExternalData(entry("offset", Long.toString(offset)))
                .addExternalData(entry("length", Long.toString(length))).build();
    }

    private static StringStringEntryProto entry(String key, String value) {
        return StringStringEntryProto.newBuilder().setKey(key).setValue(value).build();
    }
}
