package io.ortex.ep.cpu.ops.math;

/**
 * The element-wise binary functions with broadcasting. Not every function applies to every type: the integer-only
 * ones ({@link #MOD}, the bitwise ones and the shifts) are refused for floating-point inputs.
 */
enum BinaryOp {
    /** {@code a + b}. */
    ADD,
    /** {@code a - b}. */
    SUB,
    /** {@code a * b}. */
    MUL,
    /** {@code a / b}; integer division truncates, uint64 divides unsigned. */
    DIV,
    /** {@code a ^ b}. */
    POW,
    /** The larger of the two (NaN wins). */
    MAX,
    /** The smaller of the two (NaN wins). */
    MIN,
    /** Remainder whose sign follows the divisor (integers, Mod with fmod=0). */
    MOD,
    /** Remainder whose sign follows the dividend (C's fmod; Mod with fmod=1). */
    FMOD,
    /** {@code a < 0 ? a * b : a} (PRelu, b is the slope). */
    PRELU,
    /** Bitwise and. */
    AND,
    /** Bitwise or. */
    OR,
    /** Bitwise exclusive or. */
    XOR,
    /** Shift left, zero when the shift reaches the type's width. */
    SHL,
    /** Logical shift right, zero when the shift reaches the type's width. */
    SHR;

    /**
     * Tells whether the function is defined for floating-point inputs.
     *
     * @return false for the integer-only functions
     */
    boolean allowsFloat() {
        return ordinal() <= PRELU.ordinal() && this != MOD;
    }
}
