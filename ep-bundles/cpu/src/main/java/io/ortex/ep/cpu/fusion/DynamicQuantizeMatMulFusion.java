package io.ortex.ep.cpu.fusion;

import io.ortex.api.Tensor;
import io.ortex.api.spi.NodeView;
import io.ortex.api.spi.ValueView;
import io.ortex.ep.cpu.ops.quantization.DynamicQuantizedMatMul;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * The pattern dynamic-quantization tools write for a float input multiplied by constant 8-bit weights: a
 * DynamicQuantizeLinear whose levels feed one or more MatMulInteger nodes, each followed by a Cast to float, a Mul by
 * the scales' product (a Mul of the quantizer's scale and the weight's constant scale) and optionally the Add of a
 * constant bias. The group runs as one {@link DynamicQuantizedMatMul}: the input is quantized once for all the
 * weights (the query, key and value projections of an attention share one), and none of the uint8, int32 or
 * intermediate float tensors is made. Every reader of the quantizer's outputs must be part of a chain, and no
 * value inside the group may be read from outside it; otherwise the nodes run one by one.
 */
final class DynamicQuantizeMatMulFusion {
    /** The fusion's name. */
    static final String NAME = "DynamicQuantizeMatMul";

    /** The ONNX code of float32, as Cast's {@code to} attribute holds it. */
    private static final long FLOAT_CODE = 1;

    private DynamicQuantizeMatMulFusion() {
    }

    /** One MatMulInteger chain: its nodes in order, its constants and the value it ends in. */
    private record Chain(List<NodeView> nodes, Tensor weight, Tensor zeroPoint, Tensor scale, Tensor bias,
                         String output) {
    }

    /**
     * Matches at a DynamicQuantizeLinear node.
     *
     * @param quantize the anchor
     * @return the match, or {@code null}
     */
    static FusionMatch match(NodeView quantize) {
        if (!Pattern.is(quantize, "DynamicQuantizeLinear") || quantize.inputs().size() != 1
                || quantize.inputs().get(0) == null || quantize.outputs().size() != 3) {
            return null;
        }
        ValueView x = quantize.inputs().get(0);
        ValueView levels = quantize.outputs().get(0);
        ValueView scale = quantize.outputs().get(1);
        ValueView zero = quantize.outputs().get(2);
        if (!Pattern.mayBeFloat(x) || levels == null || scale == null || zero == null || levels.isGraphOutput()
                || scale.isGraphOutput() || zero.isGraphOutput() || levels.consumers().isEmpty()) {
            return null;
        }
        List<Chain> chains = new ArrayList<>();
        Set<NodeView> nodes = Collections.newSetFromMap(new IdentityHashMap<>());
        nodes.add(quantize);
        List<NodeView> ordered = new ArrayList<>(List.of(quantize));
        for (NodeView product : levels.consumers()) {
            Chain c = chain(product, levels, scale, zero);
            if (c == null || c.nodes().stream().anyMatch(nodes::contains)) {
                return null;
            }
            nodes.addAll(c.nodes());
            ordered.addAll(c.nodes());
            chains.add(c);
        }
        if (!nodes.containsAll(scale.consumers()) || !nodes.containsAll(zero.consumers())) {
            return null;
        }
        long k = chains.get(0).weight().dim(0);
        if (chains.stream().anyMatch(c -> c.weight().dim(0) != k)) {
            return null;
        }
        String xName = x.name();
        return new FusionMatch(NAME, ordered, (inputNames, outputNames) -> {
            DynamicQuantizedMatMul fused = DynamicQuantizedMatMul.compile(
                    chains.stream().map(Chain::weight).toList(), chains.stream().map(Chain::zeroPoint).toList(),
                    chains.stream().map(Chain::scale).toList(), chains.stream().map(Chain::bias).toList());
            int xi = inputNames.indexOf(xName);
            int[] slot = new int[chains.size()];
            boolean[] wanted = new boolean[chains.size()];
            for (int i = 0; i < slot.length; i++) {
                slot[i] = outputNames.indexOf(chains.get(i).output());
                wanted[i] = slot[i] >= 0;
            }
            if (xi < 0) {
                return (in, ctx) -> null;
            }
            return (in, ctx) -> {
                Tensor[] computed = fused.compute(in[xi], wanted, ctx);
                if (computed == null) {
                    return null;
                }
                Tensor[] out = new Tensor[outputNames.size()];
                for (int i = 0; i < slot.length; i++) {
                    if (slot[i] >= 0) {
                        out[slot[i]] = computed[i];
                    }
                }
                return out;
            };
        }, true);
    }

    /**
     * The chain from a MatMulInteger that reads the quantizer's levels and zero point: Cast to float, Mul by a Mul of
     * the quantizer's scale and a constant, and an optional Add of a constant bias.
     */
    private static Chain chain(NodeView product, ValueView levels, ValueView scale, ValueView zero) {
        if (!Pattern.is(product, "MatMulInteger") || product.inputs().size() < 3 || product.inputs().size() > 4
                || !sameValue(product.inputs().get(0), levels) || !sameValue(product.inputs().get(2), zero)) {
            return null;
        }
        Tensor weight = constant(product.inputs().get(1)).orElse(null);
        ValueView zeroInput = product.inputs().size() == 4 ? product.inputs().get(3) : null;
        Tensor weightZero = zeroInput == null ? null : constant(zeroInput).orElse(null);
        if (weight == null || zeroInput != null && (weightZero == null || weightZero.type() != weight.type())) {
            return null;
        }
        ValueView integers = Pattern.output(product);
        NodeView cast = Pattern.soleConsumer(integers);
        if (!Pattern.is(cast, "Cast") || cast.intAttr("to", 0) != FLOAT_CODE) {
            return null;
        }
        ValueView floats = Pattern.output(cast);
        NodeView mul = Pattern.soleConsumer(floats);
        if (!Pattern.is(mul, "Mul")) {
            return null;
        }
        ValueView scales = Pattern.other(mul, floats);
        NodeView scalesMul = scales == null ? null : scales.producer().orElse(null);
        if (scalesMul == null || !Pattern.is(scalesMul, "Mul") || Pattern.soleConsumer(scales) != mul
                || sameValue(scales, floats)) {
            return null;
        }
        Tensor weightScale = Pattern.constantFloats(Pattern.other(scalesMul, scale)).orElse(null);
        if (weightScale == null || !DynamicQuantizedMatMul.takes(weight, weightZero, weightScale, null)) {
            return null;
        }
        List<NodeView> nodes = new ArrayList<>(List.of(scalesMul, product, cast, mul));
        ValueView out = Pattern.output(mul);
        if (out == null) {
            return null;
        }
        NodeView add = Pattern.soleConsumer(out);
        Tensor bias = Pattern.is(add, "Add") ? Pattern.constantFloats(Pattern.other(add, out)).orElse(null) : null;
        if (bias != null && DynamicQuantizedMatMul.takes(weight, weightZero, weightScale, bias)
                && Pattern.output(add) != null) {
            nodes.add(add);
            out = Pattern.output(add);
        } else {
            bias = null;
        }
        return new Chain(nodes, weight, weightZero, weightScale, bias, out.name());
    }

    private static boolean sameValue(ValueView a, ValueView b) {
        return a != null && b != null && a.name().equals(b.name());
    }

    /** A constant initializer's value. */
    private static Optional<Tensor> constant(ValueView v) {
        return v != null && v.isConstantInitializer() ? v.initializer() : Optional.empty();
    }
}
