package io.ortex.ep.example.program;

/**
 * The attributes of a {@code Gemm} instruction, {@code Y = alpha * A' * B' + beta * C}.
 *
 * @param transA true when A is stored as {@code [K, M]}
 * @param transB true when B is stored as {@code [N, K]}; the compiler packs constant weights this way and sets it
 * @param alpha the factor of the product
 * @param beta the factor of C
 */
public record GemmAttributes(boolean transA, boolean transB, float alpha, float beta) implements OpAttributes {
}
