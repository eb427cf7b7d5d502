package io.ortex.ep.cpu.ops.math;

/**
 * The element-wise unary functions of floating-point values. Those with parameters read them from the
 * {@code alpha} and {@code beta} arguments of the loops: the comment of each says which is which.
 */
enum UnaryOp {
    /** |x|. */
    ABS,
    /** -x. */
    NEG,
    /** Square root. */
    SQRT,
    /** 1 / x. */
    RECIPROCAL,
    /** e^x. */
    EXP,
    /** Natural logarithm. */
    LOG,
    /** The error function. */
    ERF,
    /** max(x, 0). */
    RELU,
    /** 1 / (1 + e^-x). */
    SIGMOID,
    /** Hyperbolic tangent. */
    TANH,
    /** x &lt; 0 ? alpha x : x. */
    LEAKY_RELU,
    /** max(0, min(1, alpha x + beta)). */
    HARD_SIGMOID,
    /** x max(0, min(1, x / 6 + 1/2)). */
    HARD_SWISH,
    /** Round down. */
    FLOOR,
    /** Round up. */
    CEIL,
    /** Round half to even. */
    ROUND,
    /** -1, 0 or 1 (NaN stays NaN). */
    SIGN,
    /** Sine. */
    SIN,
    /** Cosine. */
    COS,
    /** Tangent. */
    TAN,
    /** Arc sine. */
    ASIN,
    /** Arc cosine. */
    ACOS,
    /** Arc tangent. */
    ATAN,
    /** Hyperbolic sine. */
    SINH,
    /** Hyperbolic cosine. */
    COSH,
    /** Inverse hyperbolic sine. */
    ASINH,
    /** Inverse hyperbolic cosine. */
    ACOSH,
    /** Inverse hyperbolic tangent. */
    ATANH,
    /** x &lt; 0 ? alpha (e^x - 1) : x. */
    ELU,
    /** beta (x &lt;= 0 ? alpha (e^x - 1) : x); beta is Selu's gamma. */
    SELU,
    /** max(0, x) + min(0, alpha (e^(x / alpha) - 1)). */
    CELU,
    /** ln(1 + e^x). */
    SOFTPLUS,
    /** x / (1 + |x|). */
    SOFTSIGN,
    /** x tanh(softplus(x)). */
    MISH,
    /** x Phi(x), with the exact normal CDF. */
    GELU,
    /** Gelu with the tanh approximation. */
    GELU_TANH,
    /** x &gt; alpha ? x : 0. */
    THRESHOLDED_RELU,
    /** x &lt; -alpha ? x + beta : x &gt; alpha ? x - beta : 0; alpha is lambd, beta is bias. */
    SHRINK,
    /** min(max(x, alpha), beta). */
    CLIP
}
