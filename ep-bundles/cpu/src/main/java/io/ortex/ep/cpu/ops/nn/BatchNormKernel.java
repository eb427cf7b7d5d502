package io.ortex.ep.cpu.ops.nn;

import io.ortex.api.ElementType;
import io.ortex.api.InvalidArgumentException;
import io.ortex.api.NotImplementedException;
import io.ortex.api.Tensor;
import io.ortex.api.spi.NodeView;
import io.ortex.api.spi.ValueView;
import io.ortex.ep.cpu.CpuKernel;
import io.ortex.ep.cpu.KernelFactory;
import io.ortex.ep.cpu.ops.support.FloatData;
import io.ortex.ep.cpu.ops.support.Values;

/**
 * BatchNormalization in inference mode: {@code Y = (X - mean) / sqrt(var + epsilon) * scale + B} per channel
 * (axis 1), folded into one multiply-add per element. When scale, B, mean and var are constant initializers the
 * folded coefficients are computed once when the kernel is made. Opset 7's {@code spatial=0}, where the parameters
 * have shape {@code (C, D1, ...)}, is supported; training (opset 14's {@code training_mode=1}, or the running
 * statistics outputs of earlier opsets) is not.
 */
final class BatchNormKernel {
    private BatchNormKernel() {
    }

    /**
     * Gives the factory.
     *
     * @return the factory
     */
    static KernelFactory factory() {
        return BatchNormKernel::create;
    }

    private static CpuKernel create(NodeView node) {
        if (node.intAttr("training_mode", 0) != 0) {
            throw new NotImplementedException("BatchNormalization attribute 'training_mode'=1 is not supported");
        }
        for (int i = 1; i < node.outputs().size(); i++) {
            if (node.outputs().get(i) != null) {
                throw new NotImplementedException("BatchNormalization in training mode (output " + i
                        + " requested) is not supported");
            }
        }
        double epsilon = node.floatAttr("epsilon", 1e-5f);
        double[][] fixed = constantParams(node) ? fold(params(node), epsilon) : null;
        return (in, ctx) -> {
            Tensor x = in[0];
            FloatData.requireFloating(x, "BatchNormalization input X");
            long[] shape = x.shape();
            if (shape.length < 2) {
                throw new InvalidArgumentException("BatchNormalization input X must have shape (N, C, ...), got "
                        + Tensor.shapeString(shape));
            }
            double[][] ab = fixed;
            if (ab == null) {
                Tensor[] p = new Tensor[4];
                for (int i = 0; i < 4; i++) {
                    p[i] = NormSupport.required(in, i + 1, "BatchNormalization input " + (i + 1));
                }
                ab = fold(p, epsilon);
            }
            int n = (int) shape[0];
            int c = (int) shape[1];
            int spatial = c == 0 || n == 0 ? 0 : x.size() / (n * c);
            int params = ab[0].length;
            // per-channel, or per (channel, position) for opset 7's spatial=0
            int blockLen;
            if (params == c) {
                blockLen = spatial;
            } else if (params == c * spatial) {
                blockLen = 1;
            } else {
                throw new InvalidArgumentException("BatchNormalization parameters have " + params
                        + " elements, expected " + c + " (one per channel)");
            }
            int perSample = c * spatial;
            int blocks = blockLen == 0 ? 0 : perSample / blockLen;
            double[] a = ab[0];
            double[] b = ab[1];
            if (x.type() == ElementType.DOUBLE) {
                double[] v = x.doubles();
                double[] y = new double[v.length];
                ctx.parallelFor(n * blocks, FloatData.chunk(blockLen), (from, to) -> {
                    for (int k = from; k < to; k++) {
                        int p = k % blocks;
                        double ak = a[p];
                        double bk = b[p];
                        for (int i = k * blockLen, end = i + blockLen; i < end; i++) {
                            y[i] = v[i] * ak + bk;
                        }
                    }
                });
                return new Tensor[] {Tensor.ofDoubles(y, shape)};
            }
            float[] v = Values.toFloats(x);
            float[] y = new float[v.length];
            float[] af = toFloats(a);
            float[] bf = toFloats(b);
            ctx.parallelFor(n * blocks, FloatData.chunk(blockLen), (from, to) -> {
                for (int k = from; k < to; k++) {
                    int p = k % blocks;
                    float ak = af[p];
                    float bk = bf[p];
                    for (int i = k * blockLen, end = i + blockLen; i < end; i++) {
                        y[i] = v[i] * ak + bk;
                    }
                }
            });
            return new Tensor[] {Values.fromFloats(x.type(), shape, y)};
        };
    }

    private static boolean constantParams(NodeView node) {
        if (node.inputs().size() < 5) {
            return false;
        }
        for (int i = 1; i < 5; i++) {
            ValueView v = node.inputs().get(i);
            if (v == null || !v.isConstantInitializer()) {
                return false;
            }
        }
        return true;
    }

    private static Tensor[] params(NodeView node) {
        Tensor[] p = new Tensor[4];
        for (int i = 0; i < 4; i++) {
            p[i] = node.inputs().get(i + 1).initializer().orElseThrow();
        }
        return p;
    }

    /** Folds scale, B, mean and var into a multiplier and an offset per parameter element. */
    private static double[][] fold(Tensor[] p, double epsilon) {
        String[] names = {"scale", "B", "input_mean", "input_var"};
        int count = p[0].size();
        for (int i = 0; i < 4; i++) {
            FloatData.requireFloating(p[i], "BatchNormalization input " + names[i]);
            NormSupport.requireCount(p[i], count, "BatchNormalization input " + names[i]);
        }
        double[] scale = Values.toDoubles(p[0]);
        double[] bias = Values.toDoubles(p[1]);
        double[] mean = Values.toDoubles(p[2]);
        double[] var = Values.toDoubles(p[3]);
        double[] a = new double[count];
        double[] b = new double[count];
        for (int i = 0; i < count; i++) {
            a[i] = scale[i] / Math.sqrt(var[i] + epsilon);
            b[i] = bias[i] - mean[i] * a[i];
        }
        return new double[][] {a, b};
    }

    private static float[] toFloats(double[] d) {
        float[] f = new float[d.length];
        for (int i = 0; i < d.length; i++) {
            f[i] = (float) d[i];
        }
        return f;
    }
}
