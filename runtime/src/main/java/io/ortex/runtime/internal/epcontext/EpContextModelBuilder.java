package io.ortex.runtime.internal.epcontext;

import com.google.protobuf.ByteString;
import io.ortex.api.Names;
import io.ortex.api.SessionOptions;
import io.ortex.api.spi.EpContextNode;
import io.ortex.api.spi.ExternalDataInfo;
import io.ortex.api.spi.NodeView;
import io.ortex.api.spi.ValueView;
import io.ortex.onnx.ExternalData;
import io.ortex.onnx.Graph;
import io.ortex.onnx.Node;
import io.ortex.onnx.OnnxModel;
import io.ortex.onnx.Value;
import io.ortex.onnx.proto.Onnx.AttributeProto;
import io.ortex.onnx.proto.Onnx.GraphProto;
import io.ortex.onnx.proto.Onnx.ModelProto;
import io.ortex.onnx.proto.Onnx.NodeProto;
import io.ortex.onnx.proto.Onnx.OperatorSetIdProto;
import io.ortex.onnx.proto.Onnx.StringStringEntryProto;
import io.ortex.onnx.proto.Onnx.TensorProto;
import io.ortex.onnx.proto.Onnx.ValueInfoProto;
import io.ortex.runtime.internal.graph.DependencyOrder;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Builds the compiled model, ONNX Runtime's {@code CreateEpContextModel}: the source model's message with the main
 * graph's nodes rebuilt. Each compiled partition becomes one {@code EPContext} node named after its fused node (with
 * the configured prefix), with the fused node's inputs and outputs; every other node (those of the CPU EP, and of
 * partitions whose kernel gave no payload) is copied as it was. The nodes are put in topological order again, since
 * a partition's node takes the place of several. Graph inputs and outputs, graph name, opsets (plus
 * {@code com.microsoft}) and metadata are kept; the EPs' compatibility strings are added to the metadata; only the
 * initializers that some node still reads, or that are graph inputs, are kept, with external data read into the
 * model so that it does not depend on the source's files. Stateless.
 */
public final class EpContextModelBuilder {
    /** The opset version imported for the {@code com.microsoft} domain. */
    static final int MS_DOMAIN_VERSION = 1;

    private EpContextModelBuilder() {
    }

    /**
     * The compiled model and its context binaries.
     *
     * @param model the model message
     * @param binaries the context binaries ({@link ContextBinaryFile}, one per EP) by file name relative to the
     *     model's folder, in writing order, each given as its payloads by partition name; empty in embed mode
     * @param nodesByEp the EPContext nodes written, by EP name, in the order partitions were given
     */
    public record Built(ModelProto model, Map<String, Map<String, byte[]>> binaries, Map<String, Integer> nodesByEp) {
    }

    /**
     * Builds the compiled model.
     *
     * @param source the source model
     * @param partitions the compiled partitions of its main graph
     * @param compatibility the EPs' compatibility strings by EP name (empty strings are not stored)
     * @param settings the EPContext settings (embed mode, node name prefix)
     * @param binaryStem the start of context binary names relative to the model's folder ({@code /} separating any
     *     folders), normally the compiled model's file name without its extension; in embed mode 0 each EP's payloads
     * go into one binary, {@code <stem>_<EP>.bin}, which the EP's
     *     first node ({@code main_context=1}) names, its other nodes ({@code main_context=0}) naming none
     * @param shared the shared context binary that takes the partitions' shared blobs, and in embed mode 0 with
     *     {@code ep.share_ep_contexts=1} their payloads too; {@code null} when no partition has a shared blob and the
     *     session does not share
     * @return the model and binaries
     */
    public static Built build(OnnxModel source, List<CompiledPartition> partitions, Map<String, String> compatibility,
                              EpContextSettings settings, String binaryStem, SharedContextGroup shared) {
        Graph main = source.graph();
        Map<NodeView, CompiledPartition> owner = new IdentityHashMap<>();
        for (CompiledPartition p : partitions) {
            p.nodes().forEach(n -> owner.put(n, p));
        }
        Map<String, Map<String, byte[]>> binaries = new LinkedHashMap<>();
        Map<String, Integer> nodesByEp = new LinkedHashMap<>();
        List<Entry> entries = new ArrayList<>();
        Set<CompiledPartition> written = Collections.newSetFromMap(new IdentityHashMap<>());
        int position = 0;
        for (NodeView n : main.nodes()) {
            CompiledPartition p = owner.get(n);
            if (p == null) {
                Node node = (Node) n;
                entries.add(new Entry(node.proto(), reads(n), writes(n.outputs()), position++));
            } else if (written.add(p)) {
                int count = nodesByEp.merge(p.epName(), 1, Integer::sum);
                String partition = settings.nodeNamePrefix() + p.fused().name();
                Storage where;
                boolean sharing = shared != null && settings.share();
                if (!settings.embed() && sharing) {
                    where = new Storage(shared.fileName(), shared.add(p.payload().data()), shared.claimMain(), false);
                } else if (!settings.embed()) {
                    String file = binaryStem + "_" + p.epName() + ".bin";
                    binaries.computeIfAbsent(file, f -> new LinkedHashMap<>()).put(partition, p.payload().data());
                    where = new Storage(count == 1 ? file : null, null, count == 1, false);
                } else {
                    where = new Storage(null, null, true, true);
                }
                if (!p.payload().sharedBlobs().isEmpty() && shared == null) {
                    throw new IllegalStateException("partition " + p.fused().name() + " has shared blobs but the"
                            + " compiled model has no shared context binary");
                }
                entries.add(new Entry(epContextNode(p, partition, where, shared),
                        Set.copyOf(p.fused().inputNames()), List.copyOf(p.fused().outputNames()), position++));
            }
        }
        List<NodeProto> nodes = topologicalOrder(entries, available(main));
        GraphProto.Builder graph = source.proto().getGraph().toBuilder().clearNode().addAllNode(nodes);
        keepUsedInitializersAndValueInfo(main, graph, nodes);
        ModelProto.Builder model = source.proto().toBuilder().setGraph(graph);
        addMsDomain(model);
        setMetadata(model, compatibility);
        return new Built(model.build(), binaries, nodesByEp);
    }

    /** A node of the new graph with what it reads and writes, and its place among the source's nodes. */
    private record Entry(NodeProto proto, Set<String> reads, List<String> writes, int position) {
    }

    /**
     * Where a node's payload goes.
     *
     * @param file the binary {@code ep_cache_context} names, or {@code null}: the payload itself when
     *     {@code embedded}, else none (a node with {@code main_context=0} reads its EP's main node's binary)
     * @param contextKey the payload's key in a shared context binary, or {@code null}
     * @param main the {@code main_context} value
     * @param embedded true for {@code embed_mode=1}
     */
    private record Storage(String file, String contextKey, boolean main, boolean embedded) {
    }

    private static NodeProto epContextNode(CompiledPartition p, String name, Storage where,
                                           SharedContextGroup shared) {
        NodeProto.Builder b = NodeProto.newBuilder().setName(name).setOpType(EpContextNode.OP_TYPE)
                .setDomain(EpContextNode.DOMAIN).addAllInput(p.fused().inputNames())
                .addAllOutput(p.fused().outputNames()).setDocString("EPContext node for " + p.epName());
        b.addAttribute(intAttr(EpContextNode.MAIN_CONTEXT, where.main() ? 1 : 0));
        if (where.file() != null || where.embedded()) {
            b.addAttribute(AttributeProto.newBuilder().setName(EpContextNode.EP_CACHE_CONTEXT)
                    .setType(AttributeProto.AttributeType.STRING).setS(where.embedded()
                            ? ByteString.copyFrom(p.payload().data()) : ByteString.copyFromUtf8(where.file())));
        }
        b.addAttribute(intAttr(EpContextNode.EMBED_MODE, where.embedded() ? 1 : 0));
        b.addAttribute(stringAttr(EpContextNode.EP_SDK_VERSION, p.payload().sdkVersion()));
        b.addAttribute(stringAttr(EpContextNode.PARTITION_NAME, name));
        b.addAttribute(stringAttr(EpContextNode.SOURCE, p.epName()));
        if (!p.payload().hardwareArchitecture().isEmpty()) {
            b.addAttribute(stringAttr(EpContextNode.HARDWARE_ARCHITECTURE, p.payload().hardwareArchitecture()));
        }
        if (!p.payload().notes().isEmpty()) {
            b.addAttribute(stringAttr(EpContextNode.NOTES, p.payload().notes()));
        }
        if (where.contextKey() != null) {
            b.addAttribute(stringAttr(EpContextNode.CONTEXT_KEY, where.contextKey()));
        }
        if (!p.payload().sharedBlobs().isEmpty()) {
            b.addAttribute(stringAttr(EpContextNode.SHARED_CONTEXT, shared.fileName()));
            AttributeProto.Builder keys = AttributeProto.newBuilder().setName(EpContextNode.SHARED_BLOBS)
                    .setType(AttributeProto.AttributeType.STRINGS);
            for (io.ortex.api.spi.SharedBlob blob : p.payload().sharedBlobs()) {
                keys.addStrings(ByteString.copyFromUtf8(shared.add(blob)));
            }
            b.addAttribute(keys);
        }
        return b.build();
    }

    private static AttributeProto intAttr(String name, long value) {
        return AttributeProto.newBuilder().setName(name).setType(AttributeProto.AttributeType.INT).setI(value)
                .build();
    }

    private static AttributeProto stringAttr(String name, String value) {
        return AttributeProto.newBuilder().setName(name).setType(AttributeProto.AttributeType.STRING)
                .setS(ByteString.copyFromUtf8(value)).build();
    }

    /** The values a node reads, its subgraphs' reads from the outer scope included. */
    private static Set<String> reads(NodeView n) {
        Set<String> out = new HashSet<>();
        for (ValueView v : n.inputs()) {
            if (v != null) {
                out.add(v.name());
            }
        }
        for (ValueView v : n.implicitInputs()) {
            out.add(v.name());
        }
        return out;
    }

    private static List<String> writes(List<ValueView> outputs) {
        List<String> out = new ArrayList<>();
        for (ValueView v : outputs) {
            if (v != null) {
                out.add(v.name());
            }
        }
        return out;
    }

    /** The values available before any node runs: graph inputs and initializers. */
    private static Set<String> available(Graph main) {
        Set<String> out = new HashSet<>();
        main.inputs().forEach(v -> out.add(v.name()));
        main.initializers().forEach(v -> out.add(v.name()));
        return out;
    }

    /**
     * Orders the nodes so that each comes after the producers of what it reads, keeping the source's order where it
     * can (Kahn's algorithm, taking the earliest ready node each time).
     */
    private static List<NodeProto> topologicalOrder(List<Entry> entries, Set<String> available) {
        List<Integer> order = DependencyOrder.of(entries.stream().map(Entry::writes).toList(),
                entries.stream().map(e -> e.reads().stream().filter(r -> !available.contains(r)).toList()).toList(),
                Comparator.naturalOrder());
        if (order.size() != entries.size()) {
            throw new IllegalStateException("the compiled graph has a cycle among " + (entries.size() - order.size())
                    + " nodes");
        }
        return order.stream().map(i -> entries.get(i).proto()).toList();
    }

    /**
     * Drops the initializers no node reads any more (those compiled into payloads), reads external data into the
     * ones kept, and drops value infos of values that no longer exist.
     */
    private static void keepUsedInitializersAndValueInfo(Graph main, GraphProto.Builder graph,
                                                         List<NodeProto> nodes) {
        Set<String> used = new HashSet<>();
        Set<String> present = new HashSet<>();
        for (NodeProto n : nodes) {
            collectNames(n, used);
            present.addAll(n.getOutputList());
        }
        for (ValueInfoProto v : graph.getInputList()) {
            used.add(v.getName());
        }
        for (ValueInfoProto v : graph.getOutputList()) {
            used.add(v.getName());
        }
        present.addAll(used);
        List<TensorProto> kept = new ArrayList<>();
        for (TensorProto t : graph.getInitializerList()) {
            if (used.contains(t.getName())) {
                kept.add(ExternalData.isExternal(t) ? embed(main, t) : t);
            }
        }
        graph.clearInitializer().addAllInitializer(kept);
        List<ValueInfoProto> infos = new ArrayList<>();
        for (ValueInfoProto v : graph.getValueInfoList()) {
            if (present.contains(v.getName())) {
                infos.add(v);
            }
        }
        graph.clearValueInfo().addAllValueInfo(infos);
    }

    /** Collects the value names a node reads, including those read anywhere inside its subgraphs. */
    private static void collectNames(NodeProto n, Set<String> out) {
        out.addAll(n.getInputList());
        for (AttributeProto a : n.getAttributeList()) {
            if (a.hasG()) {
                a.getG().getNodeList().forEach(s -> collectNames(s, out));
            }
            for (GraphProto g : a.getGraphsList()) {
                g.getNodeList().forEach(s -> collectNames(s, out));
            }
        }
    }

    /** Reads an initializer's external data into {@code raw_data}. */
    private static TensorProto embed(Graph main, TensorProto t) {
        Value v = main.localValue(t.getName());
        ExternalDataInfo info = v == null ? null : v.externalData().orElse(null);
        if (info == null) {
            return t;
        }
        ByteBuffer bytes = ExternalData.bytes(info, "initializer " + Names.quote(t.getName()));
        return t.toBuilder().clearExternalData().clearDataLocation().setRawData(ByteString.copyFrom(bytes)).build();
    }

    private static void addMsDomain(ModelProto.Builder model) {
        for (OperatorSetIdProto op : model.getOpsetImportList()) {
            if (op.getDomain().equals(EpContextNode.DOMAIN)) {
                return;
            }
        }
        model.addOpsetImport(OperatorSetIdProto.newBuilder().setDomain(EpContextNode.DOMAIN)
                .setVersion(MS_DOMAIN_VERSION));
    }

    private static void setMetadata(ModelProto.Builder model, Map<String, String> compatibility) {
        Map<String, String> entries = new LinkedHashMap<>();
        for (StringStringEntryProto e : model.getMetadataPropsList()) {
            entries.put(e.getKey(), e.getValue());
        }
        compatibility.forEach((ep, info) -> {
            if (info != null && !info.isEmpty()) {
                entries.put(SessionOptions.EP_COMPATIBILITY_INFO_PREFIX + ep, info);
            }
        });
        model.clearMetadataProps();
        entries.forEach((k, v) -> model.addMetadataProps(StringStringEntryProto.newBuilder().setKey(k).setValue(v)));
    }
}
