package io.ortex.onnx;

import io.ortex.api.InvalidModelException;
import io.ortex.api.NotImplementedException;
import io.ortex.api.OrtexException;
import io.ortex.api.Tensor;
import io.ortex.api.spi.Attribute;
import io.ortex.api.spi.GraphView;
import io.ortex.onnx.proto.Onnx.AttributeProto;
import io.ortex.onnx.proto.Onnx.GraphProto;
import io.ortex.onnx.proto.Onnx.TensorProto;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

/**
 * Decodes the attributes of a {@link Graph}'s nodes: numbers, strings, tensors (external data included) and
 * subgraphs, which are built as nested graphs. Errors name the model, the node and the attribute.
 */
final class AttributeDecoder {
    /** String attributes longer than this many bytes are decoded on first read. */
    static final int LAZY_STRING_BYTES = 1 << 16;

    private AttributeDecoder() {
    }

    /**
     * Decodes one attribute.
     *
     * @param graph the graph that holds the node
     * @param node the node
     * @param ap the attribute message
     * @param depth the nesting depth of {@code graph}
     * @return the attribute
     */
    static Attribute decode(Graph graph, Node node, AttributeProto ap, int depth) {
        String name = ap.getName();
        if (name.isEmpty()) {
            throw new InvalidModelException(graph.where() + node + " has an attribute without a name");
        }
        if (!ap.getRefAttrName().isEmpty()) {
            throw new InvalidModelException(graph.where() + node + " attribute '" + name
                    + "' refers to a function attribute outside a function");
        }
        try {
            switch (ap.getType()) {
                case FLOAT: return Attribute.ofFloat(name, ap.getF());
                case INT: return Attribute.ofInt(name, ap.getI());
                case STRING: {
                    com.google.protobuf.ByteString bytes = ap.getS();
                    // a large string (an embedded EPContext payload) is decoded only if someone reads it as text
                    return bytes.size() > LAZY_STRING_BYTES
                            ? Attribute.ofLazyString(name, () -> bytes.toString(StandardCharsets.UTF_8))
                            : Attribute.ofString(name, bytes.toString(StandardCharsets.UTF_8));
                }
                case TENSOR: return Attribute.ofTensor(name, decodeTensor(graph, node, name, ap.getT()));
                case GRAPH:
                    return Attribute.ofGraph(name, Graph.build(graph.model(), ap.getG(), graph, node, depth + 1));
                case FLOATS: {
                    float[] f = new float[ap.getFloatsCount()];
                    for (int i = 0; i < f.length; i++) {
                        f[i] = ap.getFloats(i);
                    }
                    return Attribute.ofFloats(name, f);
                }
                case INTS: {
                    long[] v = new long[ap.getIntsCount()];
                    for (int i = 0; i < v.length; i++) {
                        v[i] = ap.getInts(i);
                    }
                    return Attribute.ofInts(name, v);
                }
                case STRINGS: return Attribute.ofStrings(name, ap.getStringsList().stream()
                        .map(s -> s.toString(StandardCharsets.UTF_8)).collect(Collectors.toList()));
                case TENSORS: return Attribute.ofTensors(name, ap.getTensorsList().stream()
                        .map(t -> decodeTensor(graph, node, name, t)).collect(Collectors.toList()));
                case GRAPHS: {
                    List<GraphView> graphs = new ArrayList<>();
                    for (GraphProto gp : ap.getGraphsList()) {
                        graphs.add(Graph.build(graph.model(), gp, graph, node, depth + 1));
                    }
                    return Attribute.ofGraphs(name, graphs);
                }
                default:
                    throw new NotImplementedException(graph.where() + node + " attribute '" + name
                            + "' has type " + ap.getType() + ", which Ortex does not support");
            }
        } catch (InvalidModelException | NotImplementedException e) {
            throw e;
        } catch (RuntimeException e) {
            throw new InvalidModelException(graph.where() + node + " attribute '" + name + "': " + e.getMessage());
        }
    }

    /** Decodes a tensor attribute, naming the node and the attribute when its data is wrong. */
    private static Tensor decodeTensor(Graph graph, Node node, String attribute, TensorProto t) {
        String prefix = graph.where() + node + " attribute '" + attribute + "': ";
        try {
            return graph.model().decode(t);
        } catch (NotImplementedException e) {
            throw new NotImplementedException(e.code(), prefix + e.getMessage(), e);
        } catch (OrtexException e) {
            throw new InvalidModelException(e.code(), prefix + e.getMessage(), e);
        }
    }
}
