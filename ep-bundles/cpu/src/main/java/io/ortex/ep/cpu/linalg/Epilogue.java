package io.ortex.ep.cpu.linalg;

/**
 * What a matrix product does with its result {@code P = A x B} before it is stored:
 * {@code C = act(alpha P + (accumulate ? C : 0) + bias)}, the bias broadcast along rows (one value per column, as
 * MatMul+Add) or along columns (one value per row, as a convolution's output channels). Immutable.
 *
 * @param alpha the factor on the product
 * @param accumulate whether the product is added to what C holds
 * @param bias the bias values, or {@code null} for none
 * @param biasOffset the index of the first bias value
 * @param biasPerRow whether there is one bias value per row of C (otherwise one per column)
 * @param activation the function applied last
 */
public record Epilogue(float alpha, boolean accumulate, float[] bias, int biasOffset, boolean biasPerRow,
                       Activation activation) {
    /** {@code C = A x B}. */
    public static final Epilogue NONE = new Epilogue(1f, false, null, 0, false, Activation.NONE);

    /**
     * {@code C = act(A x B + bias)} with one bias value per column.
     *
     * @param bias the bias, one value per column, or {@code null}
     * @param activation the activation
     * @return the epilogue
     */
    public static Epilogue columnBias(float[] bias, Activation activation) {
        return new Epilogue(1f, false, bias, 0, false, activation);
    }

    /**
     * {@code C = act(A x B + bias)} with one bias value per row.
     *
     * @param bias the bias, one value per row, or {@code null}
     * @param offset the index of the first row's bias
     * @param activation the activation
     * @return the epilogue
     */
    public static Epilogue rowBias(float[] bias, int offset, Activation activation) {
        return new Epilogue(1f, false, bias, offset, true, activation);
    }

    /**
     * Whether the epilogue does more than store the product.
     *
     * @return true when it adds, scales or activates
     */
    boolean isPlain() {
        return alpha == 1f && !accumulate && bias == null && activation.kind() == Activation.Kind.NONE;
    }
}
