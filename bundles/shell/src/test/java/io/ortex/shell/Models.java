package io.ortex.shell;

import io.ortex.api.ElementType;
import io.ortex.testing.ModelBuilder;
import java.util.List;

/** Tiny ONNX models for the command-line tests, built with the shared {@link ModelBuilder}. */
final class Models {
    private Models() {
    }

    static ModelBuilder builder() {
        return new ModelBuilder();
    }

    /** {@code out = Relu((x + b) * y)}, x and y float[2,3], b = [1, -2, 0.5]. */
    static ModelBuilder addMulRelu() {
        return builder()
                .input("x", 2, 3)
                .input("y", 2, 3)
                .floats("b", new long[] {3}, 1f, -2f, 0.5f)
                .node("Add", "add", List.of("x", "b"), List.of("s"))
                .node("Mul", "mul", List.of("s", "y"), List.of("p"))
                .node("Relu", "relu", List.of("p"), List.of("out"))
                .output("out", 2, 3);
    }

    /**
     * {@code out = Add(m, Sigmoid(m))} with {@code m = MatMul(x, w)}, x float[2,3], w float[3,2]: the example EP
     * claims the MatMul and the Add as two partitions around the CPU EP's Sigmoid.
     */
    static ModelBuilder split() {
        return builder()
                .input("x", 2, 3)
                .floats("w", new long[] {3, 2}, 1f, -1f, 0.5f, 2f, -0.25f, 1f)
                .node("MatMul", "matmul", List.of("x", "w"), List.of("m"))
                .node("Sigmoid", "sigmoid", List.of("m"), List.of("g"))
                .valueInfo("g", ElementType.FLOAT)
                .node("Add", "add", List.of("m", "g"), List.of("out"))
                .output("out", 2, 2);
    }

    /** {@code out = x + x} with x float[N, 4]. */
    static ModelBuilder symbolic() {
        return builder()
                .input("x", -1, 4)
                .node("Add", "twice", List.of("x", "x"), List.of("out"))
                .output("out", -1, 4);
    }
}
