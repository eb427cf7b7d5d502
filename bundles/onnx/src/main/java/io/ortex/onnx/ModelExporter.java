package io.ortex.onnx;

import com.google.protobuf.ByteString;
import io.ortex.api.ElementType;
import io.ortex.api.spi.ExternalDataInfo;
import io.ortex.api.spi.ModelExport;
import io.ortex.api.spi.ModelExportOptions;
import io.ortex.api.spi.NodeView;
import io.ortex.api.spi.ValueView;
import io.ortex.onnx.proto.Onnx.GraphProto;
import io.ortex.onnx.proto.Onnx.ModelProto;
import io.ortex.onnx.proto.Onnx.NodeProto;
import io.ortex.onnx.proto.Onnx.TensorProto;
import io.ortex.onnx.proto.Onnx.TensorShapeProto;
import io.ortex.onnx.proto.Onnx.TypeProto;
import io.ortex.onnx.proto.Onnx.ValueInfoProto;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Writes some nodes of a graph as a standalone ONNX model, the implementation of
 * {@link io.ortex.api.spi.GraphView#exportModel}. Node messages are copied as they are (attributes and nested
 * subgraphs included) under unique names; initializer messages are shared with the source model, so only the
 * serialization copies their bytes. Stateless.
 */
public final class ModelExporter {
    /** The producer name written into exported models. */
    public static final String PRODUCER = "ortex";

    private ModelExporter() {
    }

    /**
     * Exports nodes of a graph.
     *
     * @param graph the graph holding the nodes
     * @param name the exported graph's name
     * @param nodes the nodes, in topological order
     * @param inputs the graph inputs, in order
     * @param outputs the graph outputs, in order
     * @param options how to write it
     * @return the model
     */
    public static ModelExport export(Graph graph, String name, List<NodeView> nodes, List<ValueView> inputs,
                                     List<ValueView> outputs, ModelExportOptions options) {
        OnnxModel model = graph.model();
        GraphProto.Builder g = GraphProto.newBuilder().setName(name.isEmpty() ? "partition" : name);
        Set<String> inputNames = new HashSet<>();
        for (ValueView v : inputs) {
            inputNames.add(v.name());
            g.addInput(inputInfo(graph, v, options));
        }
        Set<String> outputNames = new HashSet<>();
        for (ValueView v : outputs) {
            outputNames.add(v.name());
            ValueInfoProto declared = graph.declaredValue(v.name());
            g.addOutput(declared != null ? declared : ValueInfoProto.newBuilder().setName(v.name()).build());
        }
        boolean external = false;
        Set<String> initialized = new HashSet<>();
        for (NodeView n : nodes) {
            for (ValueView v : NodeGroup.reads(n)) {
                Value value = v == null ? null : underlying(v);
                if (value == null || !value.isInitializer() || !initialized.add(value.name())) {
                    continue;
                }
                boolean constant = value.isConstantInitializer() && !inputNames.contains(value.name());
                boolean defaultOfInput = !value.isConstantInitializer() && inputNames.contains(value.name());
                if (constant || defaultOfInput) {
                    TensorProto t = value.initializerProto();
                    if (ExternalData.isExternal(t)) {
                        if (options.referenceExternalData()) {
                            external = true;
                        } else {
                            t = embedded(t, value);
                        }
                    }
                    g.addInitializer(t);
                }
            }
        }
        for (ValueView v : inputs) {
            Value value = underlying(v);
            if (value != null && value.isInitializer() && value.isGraphInput() && initialized.add(value.name())) {
                g.addInitializer(value.initializerProto());
            }
        }
        List<String> names = new ArrayList<>(nodes.size());
        Set<String> taken = new HashSet<>();
        for (NodeView n : nodes) {
            String unique = n.name().isEmpty() ? n.displayName() : n.name();
            while (!taken.add(unique)) {
                unique = unique + "_" + n.id();
            }
            names.add(unique);
            NodeProto proto = ((Node) n).proto();
            g.addNode(unique.equals(proto.getName()) ? proto : proto.toBuilder().setName(unique).build());
            for (ValueView out : n.outputs()) {
                if (out != null && !outputNames.contains(out.name())) {
                    ValueInfoProto declared = graph.declaredValue(out.name());
                    if (declared != null && declared.hasType()) {
                        g.addValueInfo(declared);
                    }
                }
            }
        }
        ModelProto m = ModelProto.newBuilder()
                .setIrVersion(model.irVersion())
                .setProducerName(PRODUCER)
                .addAllOpsetImport(model.proto().getOpsetImportList())
                .addAllFunctions(model.proto().getFunctionsList())
                .setGraph(g)
                .build();
        Path folder = external ? model.externalFolder().orElse(null) : null;
        return new ModelExport(m.toByteArray(), folder, names);
    }

    /** The value a view stands for: itself, or for an outer-scope stand-in the enclosing graph's value. */
    private static Value underlying(ValueView v) {
        if (!(v instanceof Value value)) {
            return null;
        }
        while (value.outerValue() != null) {
            value = value.outerValue();
        }
        return value;
    }

    private static ValueInfoProto inputInfo(Graph graph, ValueView v, ModelExportOptions options) {
        ValueInfoProto declared = graph.declaredValue(v.name());
        if (declared != null && declared.hasType()) {
            return declared;
        }
        Value value = underlying(v);
        TensorProto init = value == null ? null : value.initializerProto();
        TypeProto.Tensor.Builder tensor = TypeProto.Tensor.newBuilder();
        if (init != null) {
            tensor.setElemType(init.getDataType());
            TensorShapeProto.Builder shape = TensorShapeProto.newBuilder();
            for (long d : init.getDimsList()) {
                shape.addDim(TensorShapeProto.Dimension.newBuilder().setDimValue(d));
            }
            tensor.setShape(shape);
        } else {
            ElementType type = options.inputElementTypes().get(v.name());
            if (type == null) {
                return ValueInfoProto.newBuilder().setName(v.name()).build();
            }
            tensor.setElemType(type.code());
        }
        return ValueInfoProto.newBuilder().setName(v.name()).setType(TypeProto.newBuilder().setTensorType(tensor))
                .build();
    }

    /** An external initializer with its bytes read into {@code raw_data}. */
    private static TensorProto embedded(TensorProto t, Value value) {
        ExternalDataInfo info = value.externalData().orElseThrow();
        ByteBuffer bytes = ExternalData.bytes(info, "initializer '" + t.getName() + "'");
        return t.toBuilder().clearExternalData().clearDataLocation().setRawData(ByteString.copyFrom(bytes)).build();
    }
}
