package io.ortex.runtime.internal;

import io.ortex.api.spi.FusedNode;
import java.util.List;

/**
 * The runtime's fused node: a name and the value names the kernel receives and returns.
 *
 * @param name the fused node's name
 * @param inputNames the input value names, in kernel order
 * @param outputNames the output value names, in kernel order
 */
record FusedNodeImpl(String name, List<String> inputNames, List<String> outputNames) implements FusedNode {
    FusedNodeImpl {
        inputNames = List.copyOf(inputNames);
        outputNames = List.copyOf(outputNames);
    }
}
