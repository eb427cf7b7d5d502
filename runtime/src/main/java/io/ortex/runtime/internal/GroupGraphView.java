package io.ortex.runtime.internal;

import io.ortex.api.InvalidArgumentException;
import io.ortex.api.spi.EpContextNode;
import io.ortex.api.spi.FusionOptions;
import io.ortex.api.spi.GraphView;
import io.ortex.api.spi.ModelExport;
import io.ortex.api.spi.ModelExportOptions;
import io.ortex.api.spi.NodeView;
import io.ortex.api.spi.ValueView;
import io.ortex.onnx.Graph;
import io.ortex.onnx.ModelExporter;
import io.ortex.onnx.NodeGroup;
import io.ortex.onnx.Node;
import io.ortex.runtime.internal.epcontext.EpContextReader;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The graph an EP compiles for one claimed group: the group's nodes in topological order; as inputs, the values the
 * group reads from outside (constant initializers left out when the EP asked to drop them); as outputs, the values
 * it produces that a node outside the group, or the graph's caller, reads. It reads the EPContext nodes among its
 * nodes for the EP ({@link #epContext}), resolving context binary files against the context folder it was given.
 */
final class GroupGraphView implements GraphView {
    private final Graph graph;
    private final List<NodeView> nodes;
    private final List<ValueView> inputs;
    private final List<ValueView> outputs;
    private final String name;
    private final Path contextFolder;

    GroupGraphView(Graph graph, String name, List<NodeView> groupNodes, FusionOptions options) {
        this(graph, name, groupNodes, options, null);
    }

    GroupGraphView(Graph graph, String name, List<NodeView> groupNodes, FusionOptions options, Path contextFolder) {
        this.graph = graph;
        this.name = name;
        this.contextFolder = contextFolder;
        NodeGroup group = new NodeGroup(graph, name, groupNodes, options.dropConstantInitializers());
        this.nodes = group.nodes();
        this.inputs = group.inputs();
        this.outputs = group.outputs();
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public List<NodeView> nodes() {
        return nodes;
    }

    @Override
    public List<ValueView> inputs() {
        return inputs;
    }

    @Override
    public List<ValueView> outputs() {
        return outputs;
    }

    @Override
    public List<ValueView> initializers() {
        List<ValueView> inits = new ArrayList<>();
        for (ValueView v : inputs) {
            if (v.isInitializer()) {
                inits.add(v);
            }
        }
        return inits;
    }

    @Override
    public Optional<ValueView> value(String valueName) {
        return graph.value(valueName);
    }

    @Override
    public Map<String, Integer> opsetImports() {
        return graph.opsetImports();
    }

    @Override
    public long irVersion() {
        return graph.irVersion();
    }

    @Override
    public Optional<Path> modelPath() {
        return graph.modelPath();
    }

    @Override
    public Optional<NodeView> parentNode() {
        return Optional.empty();
    }

    @Override
    public Map<String, String> modelMetadata() {
        return graph.modelMetadata();
    }

    /** {@inheritDoc} The nodes must be among this group's. */
    @Override
    public GraphView viewOf(List<NodeView> subset) {
        for (NodeView n : subset) {
            if (!nodes.contains(n)) {
                throw new InvalidArgumentException("node '" + n.displayName() + "' is not a node of " + name);
            }
        }
        return new NodeGroup(graph, name, subset, true);
    }

    @Override
    public ModelExport exportModel(ModelExportOptions options) {
        return ModelExporter.export(graph, name, nodes, inputs, outputs, options);
    }

    @Override
    public EpContextNode epContext(NodeView node) {
        if (!nodes.contains(node) || !(node instanceof Node n)) {
            throw new InvalidArgumentException("node '" + node.displayName() + "' is not a node of " + name);
        }
        return EpContextReader.read(n, contextFolder);
    }
}
