package io.ortex.ep.cpu.ops.math;

/**
 * Scalar math the JDK lacks (erf, inverse hyperbolic functions) and the scalar form of every {@link UnaryOp}, used
 * by the float32 loops (the static helpers, which the JIT inlines) and by the generic float64 path.
 */
final class MathFunctions {
    private static final double TWO_OVER_SQRT_PI = 1.1283791670955126;
    private static final double SQRT_HALF = 0.7071067811865476;
    private static final double SQRT_TWO_OVER_PI = 0.7978845608028654;

    /** Coefficients of erf(x) / x as a series in x^2: 2/sqrt(pi) (-1)^n / (n! (2n+1)); 10 terms suffice below 0.5. */
    private static final double[] ERF_SERIES = new double[10];

    static {
        double factorial = 1;
        for (int n = 0; n < ERF_SERIES.length; n++) {
            if (n > 0) {
                factorial *= n;
            }
            ERF_SERIES[n] = TWO_OVER_SQRT_PI * ((n & 1) == 0 ? 1 : -1) / (factorial * (2 * n + 1));
        }
    }

    private MathFunctions() {
    }

    /**
     * The error function, accurate to about 1e-7 relative (enough for float32; used for float64 too).
     *
     * @param x the argument
     * @return erf(x)
     */
    static double erf(double x) {
        double ax = Math.abs(x);
        if (ax < 0.5) {
            // Maclaurin series in x^2, evaluated by Horner's rule
            double x2 = x * x;
            double p = ERF_SERIES[ERF_SERIES.length - 1];
            for (int k = ERF_SERIES.length - 2; k >= 0; k--) {
                p = p * x2 + ERF_SERIES[k];
            }
            return x * p;
        }
        if (Double.isNaN(x)) {
            return x;
        }
        double r = erfc(ax);
        return x < 0 ? r - 1 : 1 - r;
    }

    /** Complementary error function for z &gt;= 0.5, by a Chebyshev fit with fractional error below 1.2e-7. */
    private static double erfc(double z) {
        double t = 1 / (1 + 0.5 * z);
        double poly = -z * z - 1.26551223 + t * (1.00002368 + t * (0.37409196 + t * (0.09678418
                + t * (-0.18628806 + t * (0.27886807 + t * (-1.13520398 + t * (1.48851587
                + t * (-0.82215223 + t * 0.17087277))))))));
        return t * Math.exp(poly);
    }

    /** Inverse hyperbolic sine, exact in sign and stable for large |x|. */
    static double asinh(double x) {
        double a = Math.abs(x);
        double r = a > 1e8 ? Math.log(a) + Math.log(2) : Math.log1p(a + a * a / (1 + Math.sqrt(1 + a * a)));
        return x < 0 ? -r : r;
    }

    /** Inverse hyperbolic cosine (NaN below 1). */
    static double acosh(double x) {
        return x > 1e8 ? Math.log(x) + Math.log(2) : Math.log(x + Math.sqrt(x * x - 1));
    }

    /** Inverse hyperbolic tangent, accurate near 0. */
    static double atanh(double x) {
        return 0.5 * Math.log1p(2 * x / (1 - x));
    }

    /** ln(1 + e^x) without overflow for large x. */
    static double softplus(double x) {
        return x > 0 ? x + Math.log1p(Math.exp(-x)) : Math.log1p(Math.exp(x));
    }

    /** The logistic function, without overflow for large |x|. */
    static double sigmoid(double x) {
        if (x >= 0) {
            return 1 / (1 + Math.exp(-x));
        }
        double e = Math.exp(x);
        return e / (1 + e);
    }

    /** Gelu with the exact normal CDF: x (1 + erf(x / sqrt 2)) / 2. */
    static double gelu(double x) {
        return 0.5 * x * (1 + erf(x * SQRT_HALF));
    }

    /** Gelu with the tanh approximation. */
    static double geluTanh(double x) {
        return 0.5 * x * (1 + Math.tanh(SQRT_TWO_OVER_PI * (x + 0.044715 * x * x * x)));
    }

    /**
     * Applies a unary function to one value, for the generic (non-float32) path.
     *
     * @param op the function
     * @param x the value
     * @param alpha the first parameter (see {@link UnaryOp})
     * @param beta the second parameter
     * @return the result
     */
    static double apply(UnaryOp op, double x, double alpha, double beta) {
        switch (op) {
            case ABS: return Math.abs(x);
            case NEG: return -x;
            case SQRT: return Math.sqrt(x);
            case RECIPROCAL: return 1 / x;
            case EXP: return Math.exp(x);
            case LOG: return Math.log(x);
            case ERF: return erf(x);
            case RELU: return x < 0 ? 0 : x;
            case SIGMOID: return sigmoid(x);
            case TANH: return Math.tanh(x);
            case LEAKY_RELU: return x < 0 ? alpha * x : x;
            case HARD_SIGMOID: return Math.max(0, Math.min(1, alpha * x + beta));
            case HARD_SWISH: return x * Math.max(0, Math.min(1, x / 6 + 0.5));
            case FLOOR: return Math.floor(x);
            case CEIL: return Math.ceil(x);
            case ROUND: return Math.rint(x);
            case SIGN: return Math.signum(x);
            case SIN: return Math.sin(x);
            case COS: return Math.cos(x);
            case TAN: return Math.tan(x);
            case ASIN: return Math.asin(x);
            case ACOS: return Math.acos(x);
            case ATAN: return Math.atan(x);
            case SINH: return Math.sinh(x);
            case COSH: return Math.cosh(x);
            case ASINH: return asinh(x);
            case ACOSH: return acosh(x);
            case ATANH: return atanh(x);
            case ELU: return x < 0 ? alpha * Math.expm1(x) : x;
            case SELU: return beta * (x <= 0 ? alpha * Math.expm1(x) : x);
            case CELU: return Math.max(0, x) + Math.min(0, alpha * Math.expm1(x / alpha));
            case SOFTPLUS: return softplus(x);
            case SOFTSIGN: return x / (1 + Math.abs(x));
            case MISH: return x * Math.tanh(softplus(x));
            case GELU: return gelu(x);
            case GELU_TANH: return geluTanh(x);
            case THRESHOLDED_RELU: return x > alpha ? x : 0;
            case SHRINK: return x < -alpha ? x + beta : x > alpha ? x - beta : 0;
            case CLIP: return Double.isNaN(x) ? x : Math.min(Math.max(x, alpha), beta);
            default: throw new IllegalStateException(op.name());
        }
    }
}
