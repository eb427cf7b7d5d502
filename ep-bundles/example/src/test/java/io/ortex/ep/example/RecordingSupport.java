package io.ortex.ep.example;

import static org.junit.jupiter.api.Assertions.assertFalse;

import io.ortex.api.spi.FusionOptions;
import io.ortex.api.spi.GraphSupport;
import io.ortex.api.spi.NodeView;
import java.util.ArrayList;
import java.util.List;

/** A {@link GraphSupport} that records what an EP claims. */
final class RecordingSupport implements GraphSupport {
    /** The fused groups, in call order. */
    final List<List<NodeView>> groups = new ArrayList<>();
    /** The options of each group. */
    final List<FusionOptions> options = new ArrayList<>();
    /** The single nodes. */
    final List<NodeView> singles = new ArrayList<>();

    @Override
    public void addNodesToFuse(List<NodeView> nodes, FusionOptions fusionOptions) {
        assertFalse(nodes.isEmpty(), "an empty group was claimed");
        groups.add(List.copyOf(nodes));
        options.add(fusionOptions);
    }

    @Override
    public void addSingleNode(NodeView node) {
        singles.add(node);
    }

    /** The names of the nodes of each group. */
    List<List<String>> groupNames() {
        return groups.stream().map(g -> g.stream().map(NodeView::name).toList()).toList();
    }
}
