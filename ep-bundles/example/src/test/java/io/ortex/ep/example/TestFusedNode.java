package io.ortex.ep.example;

import io.ortex.api.spi.FusedNode;
import io.ortex.api.spi.GraphView;
import io.ortex.api.spi.ValueView;
import java.util.List;

/**
 * A fused node of the test's choosing, for compiling a group (the runtime's view of it, {@link ExampleRuns}) with
 * kernel inputs and outputs in an order or under names the runtime would not pick.
 *
 * @param name the name
 * @param inputNames the kernel's input names, in order
 * @param outputNames the kernel's output names, in order
 */
record TestFusedNode(String name, List<String> inputNames, List<String> outputNames) implements FusedNode {
    /** A fused node for a group, in the group's input and output order. */
    static TestFusedNode of(String name, GraphView group) {
        return new TestFusedNode(name, group.inputs().stream().map(ValueView::name).toList(),
                group.outputs().stream().map(ValueView::name).toList());
    }
}
