package io.ortex.ep.example;

import io.ortex.api.spi.FusedNode;
import java.util.List;

/**
 * The test's fused node.
 *
 * @param name the name
 * @param inputNames the kernel's input names, in order
 * @param outputNames the kernel's output names, in order
 */
record TestFusedNode(String name, List<String> inputNames, List<String> outputNames) implements FusedNode {
    /** A fused node for a group graph, in the graph's input and output order. */
    static TestFusedNode of(String name, GroupGraph graph) {
        return new TestFusedNode(name, GroupGraph.names(graph.inputs()), GroupGraph.names(graph.outputs()));
    }
}
