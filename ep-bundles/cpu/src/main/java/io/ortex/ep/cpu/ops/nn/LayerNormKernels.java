package io.ortex.ep.cpu.ops.nn;

import io.ortex.api.ElementType;
import io.ortex.api.Tensor;
import io.ortex.ep.cpu.KernelFactory;
import io.ortex.ep.cpu.ops.reduction.ReduceLayout;
import io.ortex.ep.cpu.ops.support.FloatData;
import io.ortex.ep.cpu.ops.support.Values;
import java.util.Arrays;

/**
 * LayerNormalization (opset 17) and RMSNormalization (opset 23): each row made of the axes from {@code axis}
 * (default -1) on is normalized by its mean and variance (LayerNorm) or its root mean square (RMSNorm), then
 * multiplied by Scale and, for LayerNorm, shifted by B; both broadcast to the row's shape. LayerNorm can also
 * return the rows' Mean and InvStdDev, shaped like X with the normalized axes set to 1. Statistics are always
 * computed in double, which is at least as precise as any {@code stash_type}.
 */
final class LayerNormKernels {
    private LayerNormKernels() {
    }

    /**
     * Gives the factory.
     *
     * @param rms true for RMSNormalization
     * @return the factory
     */
    static KernelFactory factory(boolean rms) {
        return node -> {
            long axisAttr = node.intAttr("axis", -1);
            double epsilon = node.floatAttr("epsilon", 1e-5f);
            String op = node.opType();
            boolean wantMean = !rms && NormSupport.wantsOutput(node, 1);
            boolean wantInv = !rms && NormSupport.wantsOutput(node, 2);
            ElementType meanDeclared = NormSupport.declaredType(node, 1, null);
            ElementType invDeclared = NormSupport.declaredType(node, 2, null);
            return (in, ctx) -> {
                Tensor x = in[0];
                FloatData.requireFloating(x, op + " input X");
                long[] shape = x.shape();
                int rank = shape.length;
                int axis = ReduceLayout.normalizeAxis(axisAttr, rank, op + " attribute 'axis'");
                long[] normShape = Arrays.copyOfRange(shape, axis, rank);
                int rowLen = Tensor.checkedElementCount(normShape);
                int rows = rowLen == 0 ? 0 : x.size() / rowLen;
                long[] statShape = shape.clone();
                Arrays.fill(statShape, axis, rank, 1);
                Tensor scaleT = NormSupport.required(in, 1, op + " input Scale");
                Tensor biasT = rms ? null : NormSupport.optional(in, 2);
                SegmentNorm norm = new SegmentNorm(rows, rowLen, 1, 1, 0, !rms, epsilon);
                Tensor[] out = new Tensor[rms ? 1 : 3];
                if (x.type() == ElementType.DOUBLE) {
                    double[] mean = wantMean ? new double[rows] : null;
                    double[] inv = wantInv ? new double[rows] : null;
                    double[] y = norm.run(x.doubles(), NormSupport.doublesFor(scaleT, normShape, op + " Scale"),
                            biasT == null ? null : NormSupport.doublesFor(biasT, normShape, op + " B"), mean, inv,
                            ctx);
                    out[0] = Tensor.ofDoubles(y, shape);
                    if (mean != null) {
                        out[1] = Values.fromDoubles(statType(meanDeclared, ElementType.DOUBLE), statShape, mean);
                    }
                    if (inv != null) {
                        out[2] = Values.fromDoubles(statType(invDeclared, ElementType.DOUBLE), statShape, inv);
                    }
                    return out;
                }
                float[] mean = wantMean ? new float[rows] : null;
                float[] inv = wantInv ? new float[rows] : null;
                float[] y = norm.run(Values.toFloats(x), NormSupport.floatsFor(scaleT, normShape, op + " Scale"),
                        biasT == null ? null : NormSupport.floatsFor(biasT, normShape, op + " B"), mean, inv, ctx);
                out[0] = Values.fromFloats(x.type(), shape, y);
                if (mean != null) {
                    out[1] = Values.fromFloats(statType(meanDeclared, ElementType.FLOAT), statShape, mean);
                }
                if (inv != null) {
                    out[2] = Values.fromFloats(statType(invDeclared, ElementType.FLOAT), statShape, inv);
                }
                return out;
            };
        };
    }

    private static ElementType statType(ElementType declared, ElementType fallback) {
        return declared != null ? declared : fallback;
    }
}
