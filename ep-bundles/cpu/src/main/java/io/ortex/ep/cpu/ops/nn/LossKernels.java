package io.ortex.ep.cpu.ops.nn;

import io.ortex.api.ElementType;
import io.ortex.api.InvalidArgumentException;
import io.ortex.api.InvalidModelException;
import io.ortex.api.Tensor;
import io.ortex.api.spi.NodeView;
import io.ortex.ep.cpu.CpuKernel;
import io.ortex.ep.cpu.ops.support.FloatData;
import io.ortex.ep.cpu.ops.support.Shapes;
import io.ortex.ep.cpu.ops.support.Values;

/**
 * NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss (opsets 12 to 22). The input is laid out
 * {@code (N, C, d1, ..., dk)} and the integer target {@code (N, d1, ..., dk)}; the loss of one position is
 * {@code -weight[t] * logp[n, t, d]}, a target equal to {@code ignore_index} contributes nothing (neither loss nor
 * weight). {@code reduction} is {@code none}, {@code sum} or {@code mean} (the weighted mean). The softmax variant
 * first takes the log-softmax over C and can return it as a second output. Arithmetic is done in double.
 */
final class LossKernels {
    private enum Reduction { NONE, SUM, MEAN }

    private LossKernels() {
    }

    /**
     * Makes the kernel.
     *
     * @param node the node
     * @param softmax true for SoftmaxCrossEntropyLoss, false for NegativeLogLikelihoodLoss
     * @return the kernel
     */
    static CpuKernel create(NodeView node, boolean softmax) {
        String red = node.stringAttr("reduction", "mean");
        Reduction reduction = switch (red) {
            case "none" -> Reduction.NONE;
            case "sum" -> Reduction.SUM;
            case "mean" -> Reduction.MEAN;
            default -> throw new InvalidModelException("attribute 'reduction' must be none, sum or mean, got '"
                    + red + "'");
        };
        boolean hasIgnore = node.attribute("ignore_index").isPresent();
        long ignore = node.intAttr("ignore_index", 0);
        boolean wantLogProb = softmax && node.outputs().size() > 1;
        return (in, ctx) -> run(in, softmax, wantLogProb, reduction, hasIgnore, ignore);
    }

    private static Tensor[] run(Tensor[] in, boolean softmax, boolean wantLogProb, Reduction reduction, boolean hasIgnore, long ignore) {
        Tensor x = in[0];
        Tensor target = in[1];
        Tensor weight = Shapes.optional(in, 2);
        FloatData.requireFloating(x, "input");
        if (!target.type().isInteger()) {
            throw new InvalidArgumentException("target must be an integer tensor, got " + target.type());
        }
        long[] xs = x.shape();
        if (xs.length < 2) {
            throw new InvalidArgumentException("input must have at least 2 dimensions (N, C), got shape "
                    + Tensor.shapeString(xs));
        }
        int n = (int) xs[0];
        int c = (int) xs[1];
        int inner = Shapes.product(xs, 2, xs.length);
        long[] ts = target.shape();
        long[] expectTs = new long[xs.length - 1];
        expectTs[0] = xs[0];
        System.arraycopy(xs, 2, expectTs, 1, xs.length - 2);
        if (!java.util.Arrays.equals(ts, expectTs)) {
            throw new InvalidArgumentException("target shape " + Tensor.shapeString(ts) + " does not match input "
                    + Tensor.shapeString(xs) + " (expected " + Tensor.shapeString(expectTs) + ")");
        }
        double[] w = null;
        if (weight != null) {
            if (weight.rank() != 1 || weight.dim(0) != c) {
                throw new InvalidArgumentException("weight must have shape [" + c + "], got "
                        + Tensor.shapeString(weight.shape()));
            }
            w = Values.toDoubles(weight);
        }
        double[] logp = Values.toDoubles(x);
        if (softmax) {
            logp = logSoftmax(logp, n, c, inner);
        }
        long[] t = Values.toLongs(target);
        int positions = n * inner;
        double[] loss = new double[positions];
        double weightSum = 0;
        for (int b = 0; b < n; b++) {
            for (int d = 0; d < inner; d++) {
                int p = b * inner + d;
                long cls = t[p];
                if (hasIgnore && cls == ignore) {
                    continue;
                }
                if (cls < 0 || cls >= c) {
                    throw new InvalidArgumentException("target value " + cls + " at position " + p
                            + " is outside [0, " + c + ")");
                }
                double wc = w == null ? 1 : w[(int) cls];
                loss[p] = -logp[(b * c + (int) cls) * inner + d] * wc;
                weightSum += wc;
            }
        }
        ElementType type = x.type();
        Tensor out;
        if (reduction == Reduction.NONE) {
            out = Values.fromDoubles(type, ts, loss);
        } else {
            double sum = 0;
            for (double v : loss) {
                sum += v;
            }
            double r = reduction == Reduction.SUM ? sum : sum / weightSum;
            out = Values.fromDoubles(type, new long[0], new double[] {r});
        }
        if (!wantLogProb) {
            return new Tensor[] {out};
        }
        return new Tensor[] {out, Values.fromDoubles(type, xs, logp)};
    }

    /** Log-softmax over axis 1 of an {@code (N, C, inner)} array, into a new array. */
    private static double[] logSoftmax(double[] x, int n, int c, int inner) {
        double[] y = new double[x.length];
        for (int b = 0; b < n; b++) {
            int base = b * c * inner;
            for (int d = 0; d < inner; d++) {
                double max = Double.NEGATIVE_INFINITY;
                for (int k = 0; k < c; k++) {
                    max = Math.max(max, x[base + k * inner + d]);
                }
                double sum = 0;
                for (int k = 0; k < c; k++) {
                    sum += Math.exp(x[base + k * inner + d] - max);
                }
                double log = max + Math.log(sum);
                for (int k = 0; k < c; k++) {
                    y[base + k * inner + d] = x[base + k * inner + d] - log;
                }
            }
        }
        return y;
    }
}
