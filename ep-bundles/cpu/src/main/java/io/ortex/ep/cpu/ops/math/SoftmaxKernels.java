package io.ortex.ep.cpu.ops.math;

import io.ortex.api.ElementType;
import io.ortex.api.Tensor;
import io.ortex.ep.cpu.KernelFactory;
import io.ortex.ep.cpu.linalg.Elementwise;
import io.ortex.ep.cpu.ops.reduction.FloatReducer;
import io.ortex.ep.cpu.ops.reduction.ReduceLayout;
import io.ortex.ep.cpu.ops.support.FloatData;
import io.ortex.ep.cpu.ops.support.Values;

/**
 * Softmax, LogSoftmax and Hardmax. Before opset 13 the input is seen as a matrix whose rows are the axes from
 * {@code axis} (default 1) on; from opset 13 the op works along the single axis {@code axis} (default -1). Float32
 * is computed in float with double sums; float64, float16 and bfloat16 in double.
 */
final class SoftmaxKernels {
    /** The three ops. */
    enum Kind {
        /** Softmax. */
        SOFTMAX,
        /** LogSoftmax. */
        LOG_SOFTMAX,
        /** Hardmax. */
        HARDMAX
    }

    private SoftmaxKernels() {
    }

    /**
     * Gives the factory for one op.
     *
     * @param kind the op
     * @param legacy whether the node is of an opset before 13: the input is then seen as a matrix whose rows are
     *     the axes from {@code axis} (default 1) on
     * @return the factory
     */
    static KernelFactory factory(Kind kind, boolean legacy) {
        return node -> {
            long axisAttr = node.intAttr("axis", legacy ? 1 : -1);
            String op = node.opType();
            return (in, ctx) -> {
                Tensor x = in[0];
                FloatData.requireFloating(x, op + " input");
                long[] shape = x.shape();
                int rank = shape.length;
                int axis = ReduceLayout.normalizeAxis(axisAttr, Math.max(rank, 1), op + " attribute 'axis'");
                long n = 1;
                long inner = 1;
                if (rank > 0) {
                    if (legacy) {
                        for (int i = axis; i < rank; i++) {
                            n *= shape[i];
                        }
                    } else {
                        n = shape[axis];
                        for (int i = axis + 1; i < rank; i++) {
                            inner *= shape[i];
                        }
                    }
                }
                int size = x.size();
                int cols = (int) n;
                int in2 = (int) inner;
                int groups = cols == 0 ? 0 : size / cols;
                if (x.type() == ElementType.FLOAT) {
                    float[] v = x.floats();
                    Tensor result = ctx.allocateUninitialized(ElementType.FLOAT, shape);
                    float[] out = result.floats();
                    ctx.parallelFor(groups, FloatData.chunk(cols), (from, to) -> {
                        float[] tmp = in2 == 1 ? null : new float[cols];
                        for (int g = from; g < to; g++) {
                            int base = (g / in2) * cols * in2 + g % in2;
                            if (in2 == 1) {
                                rowFloat(kind, v, out, base, cols);
                            } else {
                                for (int r = 0; r < cols; r++) {
                                    tmp[r] = v[base + r * in2];
                                }
                                rowFloat(kind, tmp, tmp, 0, cols);
                                for (int r = 0; r < cols; r++) {
                                    out[base + r * in2] = tmp[r];
                                }
                            }
                        }
                    });
                    return new Tensor[] {result};
                }
                double[] v = Values.toDoubles(x);
                double[] out = new double[size];
                ctx.parallelFor(groups, FloatData.chunk(cols), (from, to) -> {
                    double[] tmp = new double[cols];
                    for (int g = from; g < to; g++) {
                        int base = (g / in2) * cols * in2 + g % in2;
                        for (int r = 0; r < cols; r++) {
                            tmp[r] = v[base + r * in2];
                        }
                        rowDouble(kind, tmp, cols);
                        for (int r = 0; r < cols; r++) {
                            out[base + r * in2] = tmp[r];
                        }
                    }
                });
                return new Tensor[] {Values.fromDoubles(x.type(), shape, out)};
            };
        };
    }

    /** Computes one row of {@code n} consecutive elements from {@code x} into {@code out} (may be the same). */
    private static void rowFloat(Kind kind, float[] x, float[] out, int off, int n) {
        if (kind == Kind.SOFTMAX && n > 0) {
            Elementwise.softmax(x, off, out, off, n);
            return;
        }
        int end = off + n;
        float m = FloatReducer.max(x, off, n);
        if (kind == Kind.HARDMAX) {
            int at = off;
            while (x[at] != m && at < end - 1) {
                at++;
            }
            for (int i = off; i < end; i++) {
                out[i] = 0f;
            }
            out[at] = 1f;
            return;
        }
        double sum = 0;
        if (kind == Kind.SOFTMAX) {
            for (int i = off; i < end; i++) {
                float e = (float) Math.exp(x[i] - m);
                out[i] = e;
                sum += e;
            }
            float scale = (float) (1.0 / sum);
            for (int i = off; i < end; i++) {
                out[i] *= scale;
            }
        } else {
            for (int i = off; i < end; i++) {
                sum += Math.exp(x[i] - m);
            }
            // subtract the max first: m + log(sum) rounded to float would lose the small part
            float logSum = (float) Math.log(sum);
            for (int i = off; i < end; i++) {
                out[i] = (x[i] - m) - logSum;
            }
        }
    }

    /** Computes one row in place. */
    private static void rowDouble(Kind kind, double[] x, int n) {
        double m = x[0];
        for (int i = 1; i < n; i++) {
            m = Math.max(m, x[i]);
        }
        if (kind == Kind.HARDMAX) {
            int at = 0;
            while (x[at] != m && at < n - 1) {
                at++;
            }
            for (int i = 0; i < n; i++) {
                x[i] = i == at ? 1 : 0;
            }
            return;
        }
        double sum = 0;
        for (int i = 0; i < n; i++) {
            sum += Math.exp(x[i] - m);
        }
        if (kind == Kind.SOFTMAX) {
            for (int i = 0; i < n; i++) {
                x[i] = Math.exp(x[i] - m) / sum;
            }
        } else {
            double logSum = Math.log(sum);
            for (int i = 0; i < n; i++) {
                x[i] = (x[i] - m) - logSum;
            }
        }
    }
}
