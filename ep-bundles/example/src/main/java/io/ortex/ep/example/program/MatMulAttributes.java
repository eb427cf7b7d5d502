package io.ortex.ep.example.program;

/**
 * How a {@code MatMul} instruction reads its second operand.
 *
 * @param bTransposed true when operand B is stored with its last two axes swapped ({@code [..., N, K]}), the layout
 *     the compiler packs constant weights into; false for B as ONNX defines it ({@code [..., K, N]})
 */
public record MatMulAttributes(boolean bTransposed) implements OpAttributes {
}
