package io.ortex.ep.cpu.fusion;

import io.ortex.api.ElementType;
import io.ortex.api.Tensor;
import io.ortex.api.spi.NodeView;
import io.ortex.api.spi.ValueView;
import io.ortex.ep.cpu.linalg.Activation;
import io.ortex.ep.cpu.linalg.Epilogue;
import io.ortex.ep.cpu.linalg.Gemm;
import io.ortex.ep.cpu.linalg.PackedB;
import java.util.ArrayList;
import java.util.List;

/**
 * MatMul of a constant float32 weight {@code W[K, N]} followed by the Add of a constant bias of {@code N} values,
 * optionally followed by a GELU ({@link GeluPattern}) or a Relu: one matrix product whose epilogue adds the bias and
 * applies the activation while the tile is in cache. The weight is packed once, at compile time.
 */
final class MatMulBiasFusion {
    /** The fusion's name. */
    static final String NAME = "MatMulBias";

    private MatMulBiasFusion() {
    }

    /**
     * Matches at a MatMul node.
     *
     * @param matMul the anchor
     * @return the match, or {@code null}
     */
    static FusionMatch match(NodeView matMul) {
        if (!Pattern.is(matMul, "MatMul") || matMul.inputs().size() != 2 || matMul.inputs().get(0) == null) {
            return null;
        }
        ValueView x = matMul.inputs().get(0);
        ConstantWeight w = ConstantWeight.of(matMul.inputs().get(1));
        if (w == null || w.rank() != 2 || !Pattern.mayBeFloat(x)) {
            return null;
        }
        int k = (int) w.dim(0);
        int n = (int) w.dim(1);
        ValueView product = Pattern.output(matMul);
        NodeView add = Pattern.soleConsumer(product);
        if (!Pattern.is(add, "Add")) {
            return null;
        }
        Tensor bias = Pattern.constantFloats(Pattern.other(add, product)).orElse(null);
        if (bias == null || bias.size() != n || bias.rank() < 1 || bias.dim(bias.rank() - 1) != n) {
            return null;
        }
        List<NodeView> nodes = new ArrayList<>(List.of(matMul, add));
        ValueView out = Pattern.output(add);
        Activation act = Activation.NONE;
        GeluPattern gelu = GeluPattern.on(out);
        if (gelu != null) {
            nodes.addAll(gelu.nodes());
            act = Activation.GELU;
        } else {
            NodeView relu = Pattern.soleConsumer(out);
            if (Pattern.is(relu, "Relu")) {
                nodes.add(relu);
                act = Activation.RELU;
            }
        }
        float[] b = bias.floats();
        Activation activation = act;
        String xName = x.name();
        int biasRank = bias.rank();
        return new FusionMatch(NAME, nodes, (inputNames, outputNames) -> {
            Tensor weights = w.decode();
            int xi = inputNames.indexOf(xName);
            if (xi < 0 || weights == null) {
                return (in, ctx) -> null;
            }
            PackedB packed = Gemm.packB(weights.floats(), 0, n, 1, k, n);
            Epilogue epilogue = Epilogue.columnBias(b, activation);
            return (in, ctx) -> {
                Tensor a = in[xi];
                if (a.type() != ElementType.FLOAT || a.rank() < 1 || a.dim(a.rank() - 1) != k
                        || a.rank() < biasRank || outputNames.size() != 1) {
                    return null;
                }
                long[] shape = a.shape();
                shape[shape.length - 1] = n;
                int rows = 1;
                for (int d = 0; d < shape.length - 1; d++) {
                    rows *= (int) shape[d];
                }
                Tensor y = ctx.allocateUninitialized(ElementType.FLOAT, a.rank() == 1 ? new long[] {n} : shape);
                Gemm.multiply(a.floats(), 0, k, 1, rows, packed, y.floats(), 0, n, epilogue, ctx);
                return new Tensor[] {y};
            };
        }, true);
    }
}
