package io.ortex.onnx;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.ortex.api.OrtexException;
import io.ortex.api.ResourceLimits;
import io.ortex.api.spi.NodeView;
import io.ortex.api.spi.ValueView;

/**
 * Fuzzes the model reader with arbitrary bytes: reading, validating, and decoding every initializer of every graph.
 * The only acceptable failure is Ortex's own exception with a message; anything else (another exception type, a
 * {@link StackOverflowError}, an {@link OutOfMemoryError}, a hang) is a finding. In a normal build the committed
 * inputs under {@code ModelReaderFuzzTestInputs} are replayed; {@code JAZZER_FUZZ=1} fuzzes (docs/robustness.md).
 */
class ModelReaderFuzzTest {
    /** Limits small enough that no input can make the fuzzer's JVM run out of memory legitimately. */
    static final ResourceLimits LIMITS = new ResourceLimits(1 << 20, 1 << 20, 16 << 20, 8, 10_000, 4096, 64 << 20);

    @FuzzTest(maxDuration = "5m")
    void readModel(byte[] bytes) {
        try {
            OnnxModel model = ModelReader.read(bytes, null, LIMITS);
            visit(model.graph());
        } catch (OrtexException e) {
            FuzzChecks.requireMessage(e);
        }
    }

    /** Touches what a session would: each node's attributes and subgraphs, each initializer's data. */
    static void visit(Graph g) {
        for (ValueView v : g.initializers()) {
            v.initializer();
        }
        for (NodeView n : g.nodes()) {
            n.displayName();
            n.attributes();
            for (var sub : n.subgraphs().values()) {
                visit((Graph) sub);
            }
        }
    }
}
