package io.ortex.ep.cpu.ops.rnn;

import io.ortex.api.NotImplementedException;
import io.ortex.ep.cpu.linalg.Elementwise;
import java.util.Locale;

/**
 * The activation functions of the recurrent ops, applied to a run of a gate vector in place. Each function is a
 * small integer code; {@link #apply} switches once per call and then runs a plain loop, so that no per-element
 * dispatch happens. Stateless.
 */
final class RnnActivations {
    static final int SIGMOID = 0;
    static final int TANH = 1;
    static final int RELU = 2;
    static final int AFFINE = 3;
    static final int LEAKY_RELU = 4;
    static final int THRESHOLDED_RELU = 5;
    static final int SCALED_TANH = 6;
    static final int HARD_SIGMOID = 7;
    static final int ELU = 8;
    static final int SOFTSIGN = 9;
    static final int SOFTPLUS = 10;

    private RnnActivations() {
    }

    /**
     * Reads an activation name (case-insensitive).
     *
     * @param name the name, such as {@code Sigmoid}
     * @param op the op type for messages
     * @return the code
     */
    static int code(String name, String op) {
        switch (name.toLowerCase(Locale.ROOT)) {
            case "sigmoid": return SIGMOID;
            case "tanh": return TANH;
            case "relu": return RELU;
            case "affine": return AFFINE;
            case "leakyrelu": return LEAKY_RELU;
            case "thresholdedrelu": return THRESHOLDED_RELU;
            case "scaledtanh": return SCALED_TANH;
            case "hardsigmoid": return HARD_SIGMOID;
            case "elu": return ELU;
            case "softsign": return SOFTSIGN;
            case "softplus": return SOFTPLUS;
            default:
                throw new NotImplementedException(op + " attribute 'activations' names the unsupported function '"
                        + name + "'");
        }
    }

    /**
     * Tells whether a function takes {@code activation_alpha}, and its default.
     *
     * @param fn the code
     * @return the default alpha, or NaN when the function has no alpha
     */
    static float defaultAlpha(int fn) {
        switch (fn) {
            case AFFINE: case THRESHOLDED_RELU: case SCALED_TANH: case ELU: return 1f;
            case LEAKY_RELU: return 0.01f;
            case HARD_SIGMOID: return 0.2f;
            default: return Float.NaN;
        }
    }

    /**
     * Tells whether a function takes {@code activation_beta}, and its default.
     *
     * @param fn the code
     * @return the default beta, or NaN when the function has no beta
     */
    static float defaultBeta(int fn) {
        switch (fn) {
            case AFFINE: return 0f;
            case SCALED_TANH: return 1f;
            case HARD_SIGMOID: return 0.5f;
            default: return Float.NaN;
        }
    }

    /**
     * Applies a function to {@code a[off, off + len)} in place.
     *
     * @param fn the code
     * @param alpha its alpha
     * @param beta its beta
     * @param a the values
     * @param off the first index
     * @param len the count
     */
    static void apply(int fn, float alpha, float beta, float[] a, int off, int len) {
        int end = off + len;
        switch (fn) {
            case SIGMOID:
                Elementwise.unary(Elementwise.Unary.SIGMOID, a, off, a, off, len);
                break;
            case TANH:
                Elementwise.unary(Elementwise.Unary.TANH, a, off, a, off, len);
                break;
            case RELU:
                for (int i = off; i < end; i++) {
                    a[i] = Math.max(a[i], 0f);
                }
                break;
            case AFFINE:
                for (int i = off; i < end; i++) {
                    a[i] = alpha * a[i] + beta;
                }
                break;
            case LEAKY_RELU:
                for (int i = off; i < end; i++) {
                    a[i] = a[i] >= 0 ? a[i] : alpha * a[i];
                }
                break;
            case THRESHOLDED_RELU:
                for (int i = off; i < end; i++) {
                    a[i] = a[i] > alpha ? a[i] : 0f;
                }
                break;
            case SCALED_TANH:
                for (int i = off; i < end; i++) {
                    a[i] = (float) (alpha * Math.tanh(beta * a[i]));
                }
                break;
            case HARD_SIGMOID:
                for (int i = off; i < end; i++) {
                    a[i] = Math.max(0f, Math.min(1f, alpha * a[i] + beta));
                }
                break;
            case ELU:
                for (int i = off; i < end; i++) {
                    a[i] = a[i] >= 0 ? a[i] : (float) (alpha * (Math.exp(a[i]) - 1));
                }
                break;
            case SOFTSIGN:
                for (int i = off; i < end; i++) {
                    a[i] = a[i] / (1 + Math.abs(a[i]));
                }
                break;
            case SOFTPLUS:
                for (int i = off; i < end; i++) {
                    a[i] = (float) softplus(a[i]);
                }
                break;
            default:
                throw new IllegalStateException("activation " + fn);
        }
    }

    /**
     * Applies a function to {@code a[off, off + len)} in place, in double precision.
     *
     * @param fn the code
     * @param alpha its alpha
     * @param beta its beta
     * @param a the values
     * @param off the first index
     * @param len the count
     */
    static void apply(int fn, float alpha, float beta, double[] a, int off, int len) {
        int end = off + len;
        switch (fn) {
            case SIGMOID:
                for (int i = off; i < end; i++) {
                    a[i] = 1 / (1 + Math.exp(-a[i]));
                }
                break;
            case TANH:
                for (int i = off; i < end; i++) {
                    a[i] = Math.tanh(a[i]);
                }
                break;
            case RELU:
                for (int i = off; i < end; i++) {
                    a[i] = Math.max(a[i], 0);
                }
                break;
            case AFFINE:
                for (int i = off; i < end; i++) {
                    a[i] = alpha * a[i] + beta;
                }
                break;
            case LEAKY_RELU:
                for (int i = off; i < end; i++) {
                    a[i] = a[i] >= 0 ? a[i] : alpha * a[i];
                }
                break;
            case THRESHOLDED_RELU:
                for (int i = off; i < end; i++) {
                    a[i] = a[i] > alpha ? a[i] : 0;
                }
                break;
            case SCALED_TANH:
                for (int i = off; i < end; i++) {
                    a[i] = alpha * Math.tanh(beta * a[i]);
                }
                break;
            case HARD_SIGMOID:
                for (int i = off; i < end; i++) {
                    a[i] = Math.max(0, Math.min(1, alpha * a[i] + beta));
                }
                break;
            case ELU:
                for (int i = off; i < end; i++) {
                    a[i] = a[i] >= 0 ? a[i] : alpha * (Math.exp(a[i]) - 1);
                }
                break;
            case SOFTSIGN:
                for (int i = off; i < end; i++) {
                    a[i] = a[i] / (1 + Math.abs(a[i]));
                }
                break;
            case SOFTPLUS:
                for (int i = off; i < end; i++) {
                    a[i] = softplus(a[i]);
                }
                break;
            default:
                throw new IllegalStateException("activation " + fn);
        }
    }

    /** log(1 + e^x) without overflow for large x. */
    private static double softplus(double x) {
        return x > 30 ? x : Math.log1p(Math.exp(x));
    }
}
