package io.ortex.serve.internal.status;

import com.google.protobuf.CodedInputStream;
import com.google.protobuf.WireFormat;
import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The main graph of a model file as the status page draws it: its nodes with the values they read and write, and
 * the graph's inputs (initializers left out) and outputs. Read by streaming the file's protobuf fields, skipping
 * tensor data, so a large model costs no more memory than its node list. Immutable.
 *
 * @param nodes the nodes in file order
 * @param inputs the graph inputs that are not initializers
 * @param outputs the graph outputs
 */
public record GraphOutline(List<Node> nodes, List<String> inputs, List<String> outputs) {
    // field numbers of onnx.proto
    private static final int MODEL_GRAPH = 7;
    private static final int GRAPH_NODE = 1;
    private static final int GRAPH_INITIALIZER = 5;
    private static final int GRAPH_INPUT = 11;
    private static final int GRAPH_OUTPUT = 12;
    private static final int NODE_INPUT = 1;
    private static final int NODE_OUTPUT = 2;
    private static final int NODE_NAME = 3;
    private static final int NODE_OP_TYPE = 4;
    private static final int NODE_DOMAIN = 7;
    private static final int VALUE_INFO_NAME = 1;
    private static final int TENSOR_NAME = 8;

    /**
     * Copies the lists.
     *
     * @param nodes the nodes in file order
     * @param inputs the graph inputs that are not initializers
     * @param outputs the graph outputs
     */
    public GraphOutline {
        nodes = List.copyOf(nodes);
        inputs = List.copyOf(inputs);
        outputs = List.copyOf(outputs);
    }

    /**
     * One node.
     *
     * @param name its name as the session's node assignment lists it: the file's, or {@code <op>_<index>} when
     *             the file leaves it empty
     * @param opType the operator type
     * @param domain the operator's domain (empty for ONNX's)
     * @param inputs the names of the values it reads (empty names of optional inputs left out)
     * @param outputs the names of the values it writes
     */
    public record Node(String name, String opType, String domain, List<String> inputs, List<String> outputs) {
        /**
         * Copies the lists.
         *
         * @param name its name
         * @param opType the operator type
         * @param domain the domain
         * @param inputs the values it reads
         * @param outputs the values it writes
         */
        public Node {
            inputs = List.copyOf(inputs);
            outputs = List.copyOf(outputs);
        }
    }

    /**
     * Reads the main graph of a model file.
     *
     * @param file the {@code .onnx} file
     * @return the outline
     * @throws IOException when the file cannot be read or is not an ONNX model (the message names the file)
     */
    public static GraphOutline read(Path file) throws IOException {
        try (InputStream in = new BufferedInputStream(Files.newInputStream(file), 1 << 16)) {
            CodedInputStream c = CodedInputStream.newInstance(in);
            c.setSizeLimit(Integer.MAX_VALUE);
            c.setRecursionLimit(Integer.MAX_VALUE);
            Builder b = new Builder();
            boolean graph = false;
            for (int tag = c.readTag(); tag != 0; tag = c.readTag()) {
                if (tag == lengthDelimited(MODEL_GRAPH)) {
                    int limit = c.pushLimit(c.readRawVarint32());
                    readGraph(c, b);
                    c.popLimit(limit);
                    graph = true;
                } else {
                    c.skipField(tag);
                }
            }
            if (!graph) {
                throw new IOException(file + " holds no graph: it is not an ONNX model");
            }
            return b.build();
        } catch (com.google.protobuf.InvalidProtocolBufferException e) {
            throw new IOException(file + " is not a valid ONNX model: " + e.getMessage(), e);
        }
    }

    private static int lengthDelimited(int field) {
        return field << 3 | WireFormat.WIRETYPE_LENGTH_DELIMITED;
    }

    private static void readGraph(CodedInputStream c, Builder b) throws IOException {
        for (int tag = c.readTag(); tag != 0; tag = c.readTag()) {
            int field = WireFormat.getTagFieldNumber(tag);
            if (WireFormat.getTagWireType(tag) != WireFormat.WIRETYPE_LENGTH_DELIMITED
                    || field != GRAPH_NODE && field != GRAPH_INITIALIZER && field != GRAPH_INPUT
                    && field != GRAPH_OUTPUT) {
                c.skipField(tag);
                continue;
            }
            int limit = c.pushLimit(c.readRawVarint32());
            switch (field) {
                case GRAPH_NODE -> b.nodes.add(readNode(c, b.nodes.size()));
                case GRAPH_INITIALIZER -> b.initializers.add(readName(c, TENSOR_NAME));
                case GRAPH_INPUT -> b.inputs.add(readName(c, VALUE_INFO_NAME));
                default -> b.outputs.add(readName(c, VALUE_INFO_NAME));
            }
            c.popLimit(limit);
        }
    }

    /** Reads the string field of a message, skipping the rest (tensor data included). */
    private static String readName(CodedInputStream c, int nameField) throws IOException {
        String name = "";
        for (int tag = c.readTag(); tag != 0; tag = c.readTag()) {
            if (tag == lengthDelimited(nameField)) {
                name = c.readStringRequireUtf8();
            } else {
                c.skipField(tag);
            }
        }
        return name;
    }

    private static Node readNode(CodedInputStream c, int index) throws IOException {
        List<String> inputs = new ArrayList<>();
        List<String> outputs = new ArrayList<>();
        String name = "";
        String op = "";
        String domain = "";
        for (int tag = c.readTag(); tag != 0; tag = c.readTag()) {
            if (tag == lengthDelimited(NODE_INPUT)) {
                String v = c.readStringRequireUtf8();
                if (!v.isEmpty()) {
                    inputs.add(v);
                }
            } else if (tag == lengthDelimited(NODE_OUTPUT)) {
                outputs.add(c.readStringRequireUtf8());
            } else if (tag == lengthDelimited(NODE_NAME)) {
                name = c.readStringRequireUtf8();
            } else if (tag == lengthDelimited(NODE_OP_TYPE)) {
                op = c.readStringRequireUtf8();
            } else if (tag == lengthDelimited(NODE_DOMAIN)) {
                domain = c.readStringRequireUtf8();
            } else {
                c.skipField(tag);  // attributes, subgraphs among them: the page draws the main graph
            }
        }
        return new Node(name.isEmpty() ? op + "_" + index : name, op, domain, inputs, outputs);
    }

    /** What the reader collected. */
    private static final class Builder {
        final List<Node> nodes = new ArrayList<>();
        final Set<String> initializers = new HashSet<>();
        final List<String> inputs = new ArrayList<>();
        final List<String> outputs = new ArrayList<>();

        GraphOutline build() {
            return new GraphOutline(nodes, inputs.stream().filter(v -> !initializers.contains(v)).toList(), outputs);
        }
    }
}
