package io.ortex.ep.cpu.ops.nn;

import io.ortex.api.InvalidModelException;
import io.ortex.api.Tensor;
import io.ortex.api.spi.NodeView;
import io.ortex.ep.cpu.CpuKernel;
import io.ortex.ep.cpu.ops.support.FloatData;
import io.ortex.ep.cpu.ops.support.Shapes;
import io.ortex.ep.cpu.ops.support.Values;

/** LpNormalization: divides each vector along {@code axis} by its L1 or L2 norm ({@code p}, default 2). */
final class LpNormalizationKernel {
    private LpNormalizationKernel() {
    }

    /**
     * LpNormalization: divides by the L1 or L2 norm along {@code axis} (default -1, {@code p} default 2); a zero
     * norm gives zeros.
     *
     * @param node the node
     * @return the kernel
     */
    static CpuKernel create(NodeView node) {
        long axisAttr = node.intAttr("axis", -1);
        long p = node.intAttr("p", 2);
        if (p != 1 && p != 2) {
            throw new InvalidModelException("attribute 'p' must be 1 or 2, got " + p);
        }
        return (in, ctx) -> {
            Tensor x = in[0];
            FloatData.requireFloating(x, "input");
            long[] s = x.shape();
            int axis = Shapes.axis(axisAttr, s.length, "axis");
            int outer = Shapes.product(s, 0, axis);
            int dim = (int) s[axis];
            int inner = Shapes.product(s, axis + 1, s.length);
            double[] v = Values.toDoubles(x);
            double[] out = new double[v.length];
            for (int o = 0; o < outer; o++) {
                for (int j = 0; j < inner; j++) {
                    int base = o * dim * inner + j;
                    double norm = 0;
                    for (int k = 0; k < dim; k++) {
                        double e = v[base + k * inner];
                        norm += p == 1 ? Math.abs(e) : e * e;
                    }
                    if (p == 2) {
                        norm = Math.sqrt(norm);
                    }
                    for (int k = 0; k < dim; k++) {
                        out[base + k * inner] = norm == 0 ? 0 : v[base + k * inner] / norm;
                    }
                }
            }
            return new Tensor[] {Values.fromDoubles(x.type(), s, out)};
        };
    }
}
