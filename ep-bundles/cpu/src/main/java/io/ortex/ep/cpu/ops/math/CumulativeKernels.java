package io.ortex.ep.cpu.ops.math;

import io.ortex.api.ElementType;
import io.ortex.api.NotImplementedException;
import io.ortex.api.Tensor;
import io.ortex.api.spi.NodeView;
import io.ortex.ep.cpu.CpuKernel;
import io.ortex.ep.cpu.ops.support.Shapes;
import io.ortex.ep.cpu.ops.support.Values;

/** The running-total ops along an axis: CumSum and CumProd. */
final class CumulativeKernels {
    private CumulativeKernels() {
    }

    /**
     * CumSum: running sums along the axis given by the second input, optionally exclusive and/or reversed.
     *
     * @param node the node
     * @return the kernel
     */
    static CpuKernel cumSum(NodeView node) {
        boolean exclusive = node.intAttr("exclusive", 0) != 0;
        boolean reverse = node.intAttr("reverse", 0) != 0;
        return (in, ctx) -> {
            Tensor x = in[0];
            long[] s = x.shape();
            int axis = Shapes.axis(Shapes.scalar(in[1], "axis"), s.length, "axis");
            int outer = Shapes.product(s, 0, axis);
            int dim = (int) s[axis];
            int inner = Shapes.product(s, axis + 1, s.length);
            int n = x.size();
            ElementType type = x.type();
            switch (type) {
                case FLOAT: {
                    float[] v = x.floats();
                    float[] out = new float[n];
                    for (int o = 0; o < outer; o++) {
                        for (int step = 0; step < dim; step++) {
                            int p = reverse ? dim - 1 - step : step;
                            int cur = (o * dim + p) * inner;
                            int prev = cur + (reverse ? inner : -inner);
                            for (int j = 0; j < inner; j++) {
                                out[cur + j] = step == 0 ? (exclusive ? 0f : v[cur + j])
                                        : out[prev + j] + (exclusive ? v[prev + j] : v[cur + j]);
                            }
                        }
                    }
                    return new Tensor[] {Tensor.of(type, s, out)};
                }
                case DOUBLE: case FLOAT16: case BFLOAT16: {
                    double[] out = new double[n];
                    for (int o = 0; o < outer; o++) {
                        for (int step = 0; step < dim; step++) {
                            int p = reverse ? dim - 1 - step : step;
                            int cur = (o * dim + p) * inner;
                            int prev = cur + (reverse ? inner : -inner);
                            for (int j = 0; j < inner; j++) {
                                out[cur + j] = step == 0 ? (exclusive ? 0 : x.getDouble(cur + j))
                                        : out[prev + j] + (exclusive ? x.getDouble(prev + j) : x.getDouble(cur + j));
                            }
                        }
                    }
                    return new Tensor[] {Values.fromDoubles(type, s, out)};
                }
                case INT64: case UINT64: case INT32: case UINT32: {
                    long[] out = new long[n];
                    for (int o = 0; o < outer; o++) {
                        for (int step = 0; step < dim; step++) {
                            int p = reverse ? dim - 1 - step : step;
                            int cur = (o * dim + p) * inner;
                            int prev = cur + (reverse ? inner : -inner);
                            for (int j = 0; j < inner; j++) {
                                out[cur + j] = step == 0 ? (exclusive ? 0 : x.getLong(cur + j))
                                        : out[prev + j] + (exclusive ? x.getLong(prev + j) : x.getLong(cur + j));
                            }
                        }
                    }
                    return new Tensor[] {Values.fromLongs(type, s, out)};
                }
                default:
                    throw new NotImplementedException("CumSum is not implemented for " + type);
            }
        };
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
}
