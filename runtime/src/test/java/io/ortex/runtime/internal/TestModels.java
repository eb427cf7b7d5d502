package io.ortex.runtime.internal;

import io.ortex.api.ElementType;
import io.ortex.testing.ModelBuilder;
import java.util.List;


/** Tiny ONNX models for the runtime's tests, built with the shared {@link ModelBuilder}. */
final class TestModels {
    /** Float32, as the builder's inputs and outputs take it. */
    static final ElementType FLOAT = ElementType.FLOAT;
    /** Int64. */
    static final ElementType INT64 = ElementType.INT64;

    private TestModels() {
    }

    static ModelBuilder builder() {
        return new ModelBuilder();
    }

    /**
     * {@code out = Relu((x + b) * y)} with {@code x, y: float[2,3]} and the initializer {@code b = [1, -2, 0.5]};
     * nodes {@code add}, {@code mul}, {@code relu}.
     */
    static ModelBuilder addMulRelu() {
        return builder()
                .input("x", FLOAT, 2, 3)
                .input("y", FLOAT, 2, 3)
                .floats("b", new long[] {3}, 1f, -2f, 0.5f)
                .node("Add", "add", List.of("x", "b"), List.of("s"))
                .node("Mul", "mul", List.of("s", "y"), List.of("p"))
                .node("Relu", "relu", List.of("p"), List.of("out"))
                .output("out", FLOAT, 2, 3);
    }

    /** What {@link #addMulRelu()} computes. */
    static float[] addMulReluExpected(float[] x, float[] y) {
        float[] b = {1f, -2f, 0.5f};
        float[] out = new float[x.length];
        for (int i = 0; i < x.length; i++) {
            out[i] = Math.max(0f, (x[i] + b[i % 3]) * y[i]);
        }
        return out;
    }

    /** {@code out = x * y} with {@code x, y: float[2,3]}; node {@code mul}. */
    static ModelBuilder mul() {
        return builder()
                .input("x", FLOAT, 2, 3)
                .input("y", FLOAT, 2, 3)
                .node("Mul", "mul", List.of("x", "y"), List.of("out"))
                .output("out", FLOAT, 2, 3);
    }

    /**
     * ONNX Runtime's partially supported model: {@code out = ((x + y) * y) + x} with {@code x, y: float[2,3]}; nodes
     * {@code add_0}, {@code mul_0}, {@code add_1}.
     */
    static ModelBuilder addMulAdd() {
        return builder()
                .input("x", FLOAT, 2, 3)
                .input("y", FLOAT, 2, 3)
                .node("Add", "add_0", List.of("x", "y"), List.of("s"))
                .node("Mul", "mul_0", List.of("s", "y"), List.of("p"))
                .node("Add", "add_1", List.of("p", "x"), List.of("out"))
                .output("out", FLOAT, 2, 3);
    }

    /** What {@link #addMulAdd()} computes. */
    static float[] addMulAddExpected(float[] x, float[] y) {
        float[] out = new float[x.length];
        for (int i = 0; i < x.length; i++) {
            out[i] = (x[i] + y[i]) * y[i] + x[i];
        }
        return out;
    }
}
