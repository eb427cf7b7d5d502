package io.ortex.shell.internal;

import io.ortex.api.InvalidModelException;
import io.ortex.api.SessionOptions;
import io.ortex.api.spi.EpContextNode;
import io.ortex.onnx.ExternalData;
import io.ortex.onnx.OnnxModel;
import io.ortex.onnx.proto.Onnx;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * What a model holds, as {@code ortex inspect} reports it: opsets, inputs and outputs, nodes by op (nested graphs
 * included), its EPContext nodes and the context binaries they name (resolved inside the model's folder, present or
 * missing), and the EPs' compatibility strings. Built once from a loaded model; immutable.
 *
 * @param file the model file
 * @param irVersion the IR version
 * @param producer the producer name and version
 * @param opsets the opset version by domain ({@code ai.onnx} for the default domain)
 * @param inputs the graph inputs that are not initializers
 * @param outputs the graph outputs
 * @param nodes the node count
 * @param nodesByOp the node count by op type ({@code domain:op} outside the default domain), most first
 * @param contexts the EPContext nodes of the main graph
 * @param binaries the context binaries the EPContext nodes name, in order of first mention
 * @param compatibility the compatibility string by EP name ({@code ep_compatibility_info.<EP>} metadata)
 */
record ModelInspection(Path file, long irVersion, String producer, Map<String, Integer> opsets, List<Value> inputs,
                       List<Value> outputs, int nodes, Map<String, Integer> nodesByOp, List<Context> contexts,
                       List<Binary> binaries, Map<String, String> compatibility) {

    /**
     * A graph input or output.
     *
     * @param name the name
     * @param type the element type, such as {@code FLOAT}, or the kind of a non-tensor value
     * @param shape the dimensions: a number, a symbolic name, or {@code ?}; empty for a scalar or no shape
     */
    record Value(String name, String type, List<String> shape) {
    }

    /**
     * An EPContext node.
     *
     * @param name the node's name
     * @param source the EP that compiled it ({@code source})
     * @param embedMode {@code embed_mode}: 1 when the payload is in the node
     * @param mainContext {@code main_context}
     * @param partition {@code partition_name}
     * @param payloadBytes the embedded payload's size, or -1 when it lives in a binary
     * @param binary the binary holding the payload ({@code ep_cache_context} of embed mode 0), or {@code null}
     * @param sharedBinary the shared context binary of its shared blobs ({@code shared_context}), or {@code null}
     * @param contextKey the payload's key in a shared context binary, or empty
     * @param sharedBlobs the keys of the shared blobs it uses
     */
    record Context(String name, String source, long embedMode, long mainContext, String partition,
                   long payloadBytes, String binary, String sharedBinary, String contextKey, List<String> sharedBlobs) {
        Context {
            sharedBlobs = List.copyOf(sharedBlobs);
        }
    }

    /**
     * A context binary named by the model.
     *
     * @param location the location as the model names it, relative to the model's folder
     * @param path the resolved path, or {@code null} when the location is refused
     * @param state {@code present}, {@code missing}, or why the location is refused (it escapes the folder, ...)
     * @param size the file's size, or -1 when it is not present
     * @param index the file's index, or {@code null} when it is not present or cannot be read
     */
    record Binary(String location, Path path, String state, long size, ContextBinaryIndex index) {
        /**
         * Tells whether the file is there.
         *
         * @return true when present
         */
        boolean present() {
            return "present".equals(state);
        }
    }

    ModelInspection {
        opsets = java.util.Collections.unmodifiableMap(new TreeMap<>(opsets));
        inputs = List.copyOf(inputs);
        outputs = List.copyOf(outputs);
        nodesByOp = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(nodesByOp));
        contexts = List.copyOf(contexts);
        binaries = List.copyOf(binaries);
        compatibility = java.util.Collections.unmodifiableMap(new TreeMap<>(compatibility));
    }

    /**
     * Inspects a loaded model.
     *
     * @param file the model file
     * @param model the model, read from {@code file}
     * @return what it holds
     */
    static ModelInspection of(Path file, OnnxModel model) {
        Onnx.ModelProto proto = model.proto();
        Onnx.GraphProto g = proto.getGraph();
        Map<String, Integer> opsets = new TreeMap<>();
        model.opsetImports().forEach((domain, v) -> opsets.put(domain.isEmpty() ? "ai.onnx" : domain, v));
        Set<String> initializers = new HashSet<>();
        g.getInitializerList().forEach(t -> initializers.add(t.getName()));
        List<Value> inputs = new ArrayList<>();
        for (Onnx.ValueInfoProto v : g.getInputList()) {
            if (!initializers.contains(v.getName())) {
                inputs.add(value(v));
            }
        }
        List<Value> outputs = g.getOutputList().stream().map(ModelInspection::value).toList();
        Map<String, Integer> byOp = new TreeMap<>();
        int nodes = count(g, byOp);
        Map<String, Integer> sorted = new LinkedHashMap<>();
        byOp.entrySet().stream().sorted((a, b) -> b.getValue() - a.getValue()).forEach(e -> sorted.put(e.getKey(),
                e.getValue()));
        Path folder = file.toAbsolutePath().getParent();
        List<Context> contexts = new ArrayList<>();
        Map<String, Binary> binaries = new LinkedHashMap<>();
        for (Onnx.NodeProto n : g.getNodeList()) {
            if (!EpContextNode.OP_TYPE.equals(n.getOpType())) {
                continue;
            }
            Context c = context(n);
            contexts.add(c);
            for (String location : new String[] {c.binary(), c.sharedBinary()}) {
                if (location != null && !binaries.containsKey(location)) {
                    binaries.put(location, binary(folder, location, c.name()));
                }
            }
        }
        Map<String, String> compatibility = new TreeMap<>();
        model.metadata().forEach((k, v) -> {
            if (k.startsWith(SessionOptions.EP_COMPATIBILITY_INFO_PREFIX)) {
                compatibility.put(k.substring(SessionOptions.EP_COMPATIBILITY_INFO_PREFIX.length()), v);
            }
        });
        String producer = (proto.getProducerName() + " " + proto.getProducerVersion()).trim();
        return new ModelInspection(file, proto.getIrVersion(), producer, opsets, inputs, outputs, nodes, sorted,
                contexts, List.copyOf(binaries.values()), compatibility);
    }

    /**
     * Gives the binaries that are not present: missing, or refused.
     *
     * @return those binaries
     */
    List<Binary> absentBinaries() {
        return binaries.stream().filter(b -> !b.present()).toList();
    }

    private static int count(Onnx.GraphProto g, Map<String, Integer> byOp) {
        int n = 0;
        for (Onnx.NodeProto node : g.getNodeList()) {
            String op = node.getDomain().isEmpty() || node.getDomain().equals("ai.onnx") ? node.getOpType()
                    : node.getDomain() + ":" + node.getOpType();
            byOp.merge(op, 1, Integer::sum);
            n++;
            for (Onnx.AttributeProto a : node.getAttributeList()) {
                if (a.hasG()) {
                    n += count(a.getG(), byOp);
                }
                for (Onnx.GraphProto sub : a.getGraphsList()) {
                    n += count(sub, byOp);
                }
            }
        }
        return n;
    }

    private static Value value(Onnx.ValueInfoProto v) {
        Onnx.TypeProto t = v.getType();
        if (!t.hasTensorType()) {
            return new Value(v.getName(), t.getValueCase().name().toLowerCase(java.util.Locale.ROOT), List.of());
        }
        Onnx.TensorProto.DataType dt = Onnx.TensorProto.DataType.forNumber(t.getTensorType().getElemType());
        String type = dt == null ? "type " + t.getTensorType().getElemType() : dt.name();
        List<String> shape = new ArrayList<>();
        if (t.getTensorType().hasShape()) {
            for (Onnx.TensorShapeProto.Dimension d : t.getTensorType().getShape().getDimList()) {
                shape.add(d.hasDimValue() ? Long.toString(d.getDimValue()) : d.hasDimParam() ? d.getDimParam() : "?");
            }
        }
        return new Value(v.getName(), type, shape);
    }

    private static Context context(Onnx.NodeProto n) {
        Map<String, Onnx.AttributeProto> a = new LinkedHashMap<>();
        n.getAttributeList().forEach(x -> a.put(x.getName(), x));
        long embed = a.containsKey(EpContextNode.EMBED_MODE) ? a.get(EpContextNode.EMBED_MODE).getI() : 1;
        long main = a.containsKey(EpContextNode.MAIN_CONTEXT) ? a.get(EpContextNode.MAIN_CONTEXT).getI() : 1;
        Onnx.AttributeProto cache = a.get(EpContextNode.EP_CACHE_CONTEXT);
        String binary = embed == 0 && cache != null ? cache.getS().toStringUtf8() : null;
        long payload = embed != 0 && cache != null ? cache.getS().size() : -1;
        String shared = a.containsKey(EpContextNode.SHARED_CONTEXT)
                ? a.get(EpContextNode.SHARED_CONTEXT).getS().toStringUtf8() : null;
        List<String> blobs = a.containsKey(EpContextNode.SHARED_BLOBS) ? a.get(EpContextNode.SHARED_BLOBS)
                .getStringsList().stream().map(com.google.protobuf.ByteString::toStringUtf8).toList() : List.of();
        return new Context(n.getName(), string(a, EpContextNode.SOURCE), embed, main,
                string(a, EpContextNode.PARTITION_NAME), payload, binary, shared, string(a, EpContextNode.CONTEXT_KEY),
                blobs);
    }

    private static String string(Map<String, Onnx.AttributeProto> a, String name) {
        return a.containsKey(name) ? a.get(name).getS().toStringUtf8() : "";
    }

    /** Resolves a binary inside the model's folder, as loading does, and looks at the file. */
    private static Binary binary(Path folder, String location, String node) {
        Path path;
        try {
            path = ExternalData.resolveInside(folder, location, "EPContext node " + io.ortex.api.Names.quote(node));
        } catch (InvalidModelException e) {
            return new Binary(location, null, "refused: " + e.getMessage(), -1, null);
        }
        if (!Files.isRegularFile(path)) {
            return new Binary(location, path, Files.exists(path, LinkOption.NOFOLLOW_LINKS) ? "not a file"
                    : "missing", -1, null);
        }
        try {
            return new Binary(location, path, "present", Files.size(path), ContextBinaryIndex.read(path));
        } catch (IOException e) {
            return new Binary(location, path, "unreadable: " + e.getMessage(), -1, null);
        }
    }
}
