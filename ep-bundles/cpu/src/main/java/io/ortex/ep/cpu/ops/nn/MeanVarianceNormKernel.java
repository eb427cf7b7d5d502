package io.ortex.ep.cpu.ops.nn;

import io.ortex.api.Tensor;
import io.ortex.ep.cpu.KernelFactory;
import io.ortex.ep.cpu.ops.reduction.ReduceLayout;
import io.ortex.ep.cpu.ops.support.FloatData;
import io.ortex.ep.cpu.ops.support.Values;

/**
 * MeanVarianceNormalization: {@code (X - mean) / (sqrt(variance) + 1e-9)} with mean and variance taken over
 * {@code axes} (default {@code [0, 2, 3]}), as ONNX's function definition computes it. Computed in double.
 */
final class MeanVarianceNormKernel {
    private static final double EPSILON = 1e-9;

    private MeanVarianceNormKernel() {
    }

    /**
     * Gives the factory.
     *
     * @return the factory
     */
    static KernelFactory factory() {
        return node -> {
            long[] axes = node.intsAttr("axes", new long[] {0, 2, 3});
            return (in, ctx) -> {
                Tensor x = in[0];
                FloatData.requireFloating(x, "MeanVarianceNormalization input");
                ReduceLayout l = ReduceLayout.plan(x.shape(), axes, true, false, "MeanVarianceNormalization");
                int[] kept = l.keptOffsets();
                int[] red = l.reducedOffsets();
                int n = l.reduceCount;
                double[] v = Values.toDoubles(x);
                double[] y = new double[v.length];
                ctx.parallelFor(l.outCount, FloatData.chunk(n), (from, to) -> {
                    for (int o = from; o < to; o++) {
                        int base = kept[o];
                        double mean = 0;
                        for (int r = 0; r < n; r++) {
                            mean += v[base + red[r]];
                        }
                        mean /= n;
                        double var = 0;
                        for (int r = 0; r < n; r++) {
                            double d = v[base + red[r]] - mean;
                            var += d * d;
                        }
                        double div = Math.sqrt(var / n) + EPSILON;
                        for (int r = 0; r < n; r++) {
                            int i = base + red[r];
                            y[i] = (v[i] - mean) / div;
                        }
                    }
                });
                return new Tensor[] {Values.fromDoubles(x.type(), x.shape(), y)};
            };
        };
    }
}
