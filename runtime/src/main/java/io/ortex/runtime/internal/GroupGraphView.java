package io.ortex.runtime.internal;

import io.ortex.api.InvalidArgumentException;
import io.ortex.api.Names;
import io.ortex.api.spi.EpContextNode;
import io.ortex.api.spi.FusionOptions;
import io.ortex.api.spi.GraphView;
import io.ortex.api.spi.NodeView;
import io.ortex.onnx.Graph;
import io.ortex.onnx.Node;
import io.ortex.onnx.NodeGroup;
import io.ortex.runtime.internal.epcontext.EpContextReader;
import java.nio.file.Path;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/**
 * The graph an EP compiles for one claimed group: a {@link NodeGroup} (constant initializers left out of the inputs
 * when the EP asked to drop them) that also reads the EPContext nodes among its nodes for the EP ({@link #epContext}),
 * resolving context binary files against the context folder it was given.
 */
final class GroupGraphView extends NodeGroup {
    private final String name;
    private final Path contextFolder;
    private final int firstPosition;

    /**
     * Builds the view of one group in time linear in the group's size and the edges that touch it.
     *
     * @param graph the graph the group belongs to
     * @param name the view's name
     * @param groupNodes the group's nodes, in any order
     * @param options the EP's fusion options
     * @param contextFolder the folder context binary files are resolved against, or {@code null}
     * @param positions each node's position in the graph's topological order
     */
    GroupGraphView(Graph graph, String name, List<NodeView> groupNodes, FusionOptions options, Path contextFolder,
                   Map<NodeView, Integer> positions) {
        super(graph, name, groupNodes, options.dropConstantInitializers(), positions);
        this.name = name;
        this.contextFolder = contextFolder;
        this.firstPosition = positions.get(nodes().get(0));
    }

    /**
     * Numbers a graph's nodes in its topological order, for views and plans that order groups.
     *
     * @param graph the graph
     * @return each node's position
     */
    static Map<NodeView, Integer> positions(GraphView graph) {
        List<NodeView> all = graph.nodes();
        Map<NodeView, Integer> positions = new IdentityHashMap<>(all.size() * 2);
        for (int i = 0; i < all.size(); i++) {
            positions.put(all.get(i), i);
        }
        return positions;
    }

    /**
     * Gives the position of the group's first node in the graph's topological order.
     *
     * @return the position
     */
    int firstPosition() {
        return firstPosition;
    }

    @Override
    public EpContextNode epContext(NodeView node) {
        if (!nodes().contains(node) || !(node instanceof Node n)) {
            throw new InvalidArgumentException("node " + Names.quote(node.displayName()) + " is not a node of " + name);
        }
        return EpContextReader.read(n, contextFolder);
    }
}
