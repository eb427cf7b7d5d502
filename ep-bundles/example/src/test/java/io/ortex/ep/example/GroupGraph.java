package io.ortex.ep.example;

import io.ortex.api.spi.FusionOptions;
import io.ortex.api.spi.GraphView;
import io.ortex.api.spi.NodeView;
import io.ortex.api.spi.ValueView;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The test's stand-in for the runtime's group view: the group's nodes in the graph's order; as inputs the values it
 * reads from outside, in order of first use, without constant initializers when the options drop them; as outputs
 * the values it produces that a node outside or the graph's caller reads.
 */
final class GroupGraph implements GraphView {
    private final GraphView graph;
    private final List<NodeView> nodes = new ArrayList<>();
    private final List<ValueView> inputs;
    private final List<ValueView> outputs = new ArrayList<>();

    GroupGraph(GraphView graph, List<NodeView> group, FusionOptions options) {
        this.graph = graph;
        Set<NodeView> members = new HashSet<>(group);
        Set<String> produced = new HashSet<>();
        for (NodeView n : graph.nodes()) {
            if (members.contains(n)) {
                nodes.add(n);
                n.outputs().forEach(v -> produced.add(v.name()));
            }
        }
        LinkedHashSet<ValueView> in = new LinkedHashSet<>();
        for (NodeView n : nodes) {
            for (ValueView v : n.inputs()) {
                if (v != null && !produced.contains(v.name())
                        && !(options.dropConstantInitializers() && v.isConstantInitializer())) {
                    in.add(v);
                }
            }
        }
        this.inputs = List.copyOf(in);
        Set<String> readOutside = new HashSet<>();
        for (NodeView n : graph.nodes()) {
            if (!members.contains(n)) {
                n.inputs().forEach(v -> {
                    if (v != null) {
                        readOutside.add(v.name());
                    }
                });
            }
        }
        graph.outputs().forEach(v -> readOutside.add(v.name()));
        for (NodeView n : nodes) {
            for (ValueView v : n.outputs()) {
                if (v != null && readOutside.contains(v.name())) {
                    outputs.add(v);
                }
            }
        }
    }

    /** The names of some values. */
    static List<String> names(List<ValueView> values) {
        return values.stream().map(ValueView::name).toList();
    }

    @Override
    public String name() {
        return "group";
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
        return inputs.stream().filter(ValueView::isInitializer).toList();
    }

    @Override
    public Optional<ValueView> value(String name) {
        return graph.value(name);
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
        return Optional.empty();
    }

    @Override
    public Optional<NodeView> parentNode() {
        return Optional.empty();
    }

    @Override
    public Map<String, String> modelMetadata() {
        return Map.of();
    }
}
