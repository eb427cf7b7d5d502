package io.ortex.runtime.internal.epcontext;

import io.ortex.api.InvalidModelException;
import io.ortex.api.Names;
import io.ortex.api.spi.EpContextNode;
import io.ortex.api.spi.GraphView;
import io.ortex.api.spi.NodeView;
import io.ortex.onnx.Node;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Finds the payload of an EPContext node with {@code main_context=0}: it lies in the context binary of its EP's main
 * node in the same model, the EPContext node with {@code main_context=1}, {@code embed_mode=0} and the same
 * {@code source}, under the node's {@code partition_name}. A model merged from several compiled models has one main
 * node per EP and model; the node's partition is looked up in each of their binaries, in graph order. Stateless.
 */
final class MainContextResolver {
    private MainContextResolver() {
    }

    /**
     * Reads a non-main node's payload.
     *
     * @param node the node ({@code main_context=0})
     * @param partition its {@code partition_name}
     * @param what the node, for messages
     * @param contextFolder the folder context binary paths are relative to, or {@code null}
     * @return the payload
     * @throws InvalidModelException when the node has no partition name or no source, when the model has no main
     *     node for its source, or when no main node's binary holds its partition; the message names the node
     */
    static byte[] payload(Node node, String partition, String what, Path contextFolder) {
        String source = node.stringAttr(EpContextNode.SOURCE, "");
        if (source.isEmpty()) {
            throw new InvalidModelException(what + " has " + EpContextNode.MAIN_CONTEXT + "=0 but no "
                    + EpContextNode.SOURCE + ", which finds the main node holding its context");
        }
        EpContextReader.requirePartition(what, partition);
        List<NodeView> mains = new ArrayList<>();
        collectMains(node.graph().model().graph(), source, mains);
        if (mains.isEmpty()) {
            throw new InvalidModelException(what + " has " + EpContextNode.MAIN_CONTEXT + "=0, but the model has no"
                    + " EPContext node with " + EpContextNode.MAIN_CONTEXT + "=1, " + EpContextNode.EMBED_MODE
                    + "=0 and " + EpContextNode.SOURCE + " " + Names.quote(source)
                    + " whose context binary holds its partition '"
                    + partition + "'");
        }
        List<String> searched = new ArrayList<>();
        for (NodeView main : mains) {
            Path file = EpContextReader.contextBinary(what, main.stringAttr(EpContextNode.EP_CACHE_CONTEXT, ""),
                    contextFolder);
            String mainWhat = what + " (through main node " + Names.quote(main.displayName()) + ")";
            if (mains.size() == 1 || ContextBinaryFile.partitions(file, mainWhat).contains(partition)) {
                return ContextBinaryFile.read(file, partition, mainWhat);
            }
            searched.add(main.displayName() + " -> " + file.getFileName());
        }
        throw new InvalidModelException(what + ": partition " + Names.quote(partition)
                + " is in none of the context binaries"
                + " of the main nodes with " + EpContextNode.SOURCE + " " + Names.quote(source) + " " + searched);
    }

    /** Collects the main nodes of a source, kept in context binaries, in graph order (subgraphs included). */
    private static void collectMains(GraphView g, String source, List<NodeView> out) {
        for (NodeView n : g.nodes()) {
            if (EpContextNode.isEpContext(n) && n.intAttr(EpContextNode.MAIN_CONTEXT, 1) != 0
                    && n.intAttr(EpContextNode.EMBED_MODE, 1) == 0
                    && n.stringAttr(EpContextNode.CONTEXT_KEY, "").isEmpty()
                    && source.equals(n.stringAttr(EpContextNode.SOURCE, ""))) {
                out.add(n);
            }
            for (GraphView sub : n.subgraphs().values()) {
                collectMains(sub, source, out);
            }
        }
    }
}
