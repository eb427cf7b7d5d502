package io.ortex.ep.cpu.ops;

import io.ortex.api.ElementType;
import io.ortex.api.InvalidArgumentException;
import io.ortex.api.InvalidModelException;
import io.ortex.api.NotImplementedException;
import io.ortex.api.Tensor;
import io.ortex.api.spi.NodeView;
import io.ortex.ep.cpu.CpuKernel;

/** The kernels of {@link TensorMathOps}: CumProd, LpNormalization and Det. */
final class TensorMathKernels {
    private TensorMathKernels() {
    }

    /**
     * CumProd (opset 26): running products along the axis given by the second input, optionally exclusive (the
     * first product is 1) and/or reversed. Floating types are multiplied in double, integer types in long
     * (wrapping like the narrower type once stored).
     *
     * @param node the node
     * @return the kernel
     */
    static CpuKernel cumProd(NodeView node) {
        boolean exclusive = node.intAttr("exclusive", 0) != 0;
        boolean reverse = node.intAttr("reverse", 0) != 0;
        return (in, ctx) -> {
            Tensor x = in[0];
            long[] s = x.shape();
            int axis = Shapes.axis(Shapes.scalar(in[1], "axis"), s.length, "axis");
            int outer = Shapes.product(s, 0, axis);
            int dim = (int) s[axis];
            int inner = Shapes.product(s, axis + 1, s.length);
            ElementType type = x.type();
            if (type.isFloatingPoint()) {
                double[] v = Values.toDoubles(x);
                double[] out = new double[v.length];
                for (int o = 0; o < outer; o++) {
                    for (int j = 0; j < inner; j++) {
                        double acc = 1;
                        for (int step = 0; step < dim; step++) {
                            int at = (o * dim + (reverse ? dim - 1 - step : step)) * inner + j;
                            if (exclusive) {
                                out[at] = acc;
                                acc *= v[at];
                            } else {
                                acc *= v[at];
                                out[at] = acc;
                            }
                        }
                    }
                }
                return new Tensor[] {Values.fromDoubles(type, s, out)};
            }
            if (!type.isInteger()) {
                throw new NotImplementedException("CumProd input type " + type + " is not supported");
            }
            long[] v = Values.toLongs(x);
            long[] out = new long[v.length];
            for (int o = 0; o < outer; o++) {
                for (int j = 0; j < inner; j++) {
                    long acc = 1;
                    for (int step = 0; step < dim; step++) {
                        int at = (o * dim + (reverse ? dim - 1 - step : step)) * inner + j;
                        if (exclusive) {
                            out[at] = acc;
                            acc *= v[at];
                        } else {
                            acc *= v[at];
                            out[at] = acc;
                        }
                    }
                }
            }
            return new Tensor[] {Values.fromLongs(type, s, out)};
        };
    }

    /**
     * LpNormalization: divides by the L1 or L2 norm along {@code axis} (default -1, {@code p} default 2); a zero
     * norm gives zeros.
     *
     * @param node the node
     * @return the kernel
     */
    static CpuKernel lpNormalization(NodeView node) {
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

    /**
     * Det: the determinants of the square matrices in the last two axes, by LU decomposition with partial
     * pivoting in double.
     *
     * @param node the node
     * @return the kernel
     */
    static CpuKernel det(NodeView node) {
        return (in, ctx) -> {
            Tensor x = in[0];
            FloatData.requireFloating(x, "input");
            long[] s = x.shape();
            if (s.length < 2 || s[s.length - 1] != s[s.length - 2]) {
                throw new InvalidArgumentException("Det needs square matrices in the last two axes, got shape "
                        + Tensor.shapeString(s));
            }
            int m = (int) s[s.length - 1];
            long[] os = java.util.Arrays.copyOf(s, s.length - 2);
            int count = Shapes.product(os, 0, os.length);
            double[] v = Values.toDoubles(x);
            double[] out = new double[count];
            double[] a = new double[m * m];
            for (int b = 0; b < count; b++) {
                System.arraycopy(v, b * m * m, a, 0, m * m);
                out[b] = luDeterminant(a, m);
            }
            return new Tensor[] {Values.fromDoubles(x.type(), os, out)};
        };
    }

    /** The determinant of an {@code m x m} row-major matrix, destroying it. */
    private static double luDeterminant(double[] a, int m) {
        double det = 1;
        for (int col = 0; col < m; col++) {
            int pivot = col;
            for (int r = col + 1; r < m; r++) {
                if (Math.abs(a[r * m + col]) > Math.abs(a[pivot * m + col])) {
                    pivot = r;
                }
            }
            if (a[pivot * m + col] == 0) {
                return 0;
            }
            if (pivot != col) {
                for (int k = 0; k < m; k++) {
                    double t = a[col * m + k];
                    a[col * m + k] = a[pivot * m + k];
                    a[pivot * m + k] = t;
                }
                det = -det;
            }
            double d = a[col * m + col];
            det *= d;
            for (int r = col + 1; r < m; r++) {
                double f = a[r * m + col] / d;
                for (int k = col; k < m; k++) {
                    a[r * m + k] -= f * a[col * m + k];
                }
            }
        }
        return det;
    }
}
