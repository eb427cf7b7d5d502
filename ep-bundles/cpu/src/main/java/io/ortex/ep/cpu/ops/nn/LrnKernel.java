package io.ortex.ep.cpu.ops.nn;

import io.ortex.api.InvalidArgumentException;
import io.ortex.api.InvalidModelException;
import io.ortex.api.Tensor;
import io.ortex.ep.cpu.KernelFactory;
import io.ortex.ep.cpu.ops.support.FloatData;
import io.ortex.ep.cpu.ops.support.Values;
import java.util.Arrays;

/**
 * LRN, local response normalization across channels of an {@code (N, C, D1, ...)} input:
 * {@code y = x / (bias + alpha / size * sum of x^2 over the channels c - floor((size-1)/2) .. c + ceil((size-1)/2))
 * ^ beta}. Computed in double for every floating type.
 */
final class LrnKernel {
    private LrnKernel() {
    }

    /**
     * Gives the factory.
     *
     * @return the factory
     */
    static KernelFactory factory() {
        return node -> {
            double alpha = node.floatAttr("alpha", 1e-4f);
            double beta = node.floatAttr("beta", 0.75f);
            double bias = node.floatAttr("bias", 1.0f);
            long size = node.intAttr("size", -1);
            if (size <= 0) {
                throw new InvalidModelException("LRN attribute 'size' is missing or not positive");
            }
            int before = (int) ((size - 1) / 2);
            int after = (int) (size - 1 - before);
            double k = alpha / size;
            return (in, ctx) -> {
                Tensor x = in[0];
                FloatData.requireFloating(x, "LRN input");
                long[] shape = x.shape();
                if (shape.length < 2) {
                    throw new InvalidArgumentException("LRN input must have shape (N, C, ...), got "
                            + Tensor.shapeString(shape));
                }
                int n = (int) shape[0];
                int c = (int) shape[1];
                int spatial = c == 0 || n == 0 ? 0 : x.size() / (n * c);
                double[] v = Values.toDoubles(x);
                double[] y = new double[v.length];
                ctx.parallelFor(n, 1, (from, to) -> {
                    double[] acc = new double[spatial];
                    for (int s = from; s < to; s++) {
                        int base = s * c * spatial;
                        for (int ch = 0; ch < c; ch++) {
                            Arrays.fill(acc, 0);
                            int lo = Math.max(0, ch - before);
                            int hi = Math.min(c - 1, ch + after);
                            for (int q = lo; q <= hi; q++) {
                                int o = base + q * spatial;
                                for (int i = 0; i < spatial; i++) {
                                    acc[i] += v[o + i] * v[o + i];
                                }
                            }
                            int o = base + ch * spatial;
                            for (int i = 0; i < spatial; i++) {
                                y[o + i] = v[o + i] / Math.pow(bias + k * acc[i], beta);
                            }
                        }
                    }
                });
                return new Tensor[] {Values.fromDoubles(x.type(), shape, y)};
            };
        };
    }
}
