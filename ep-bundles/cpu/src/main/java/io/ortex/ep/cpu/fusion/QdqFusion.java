package io.ortex.ep.cpu.fusion;

import io.ortex.api.ElementType;
import io.ortex.api.Tensor;
import io.ortex.api.spi.NodeView;
import io.ortex.api.spi.ValueView;
import io.ortex.ep.cpu.ops.nn.Window;
import io.ortex.ep.cpu.ops.quantization.QuantizedConv;
import io.ortex.ep.cpu.ops.quantization.QuantizedMatMul;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The pattern quantization tools write in the QDQ format around a Conv, a MatMul or a Gemm: the input, the constant
 * 8-bit weights and (for Conv and Gemm) the constant int32 bias each through a DequantizeLinear, the float product,
 * and a QuantizeLinear of its output. The group runs as QLinearConv or QLinearMatMul would ({@link QuantizedConv},
 * {@link QuantizedMatMul}): an exact integer product of the quantized values, requantized once, with no float tensor
 * made, as ONNX Runtime's graph optimizer rewrites the same pattern. The result can differ from the nodes' float
 * computation by one quantization level where the float product lands next to a rounding boundary.
 *
 * <p>It matches only when the scales and zero points are constants, the input and the output are quantized per
 * tensor to 8-bit integers, the weights per tensor or per output channel (Conv: axis 0; MatMul: per column; Gemm:
 * per column of the product, axis 0 when B is transposed), a Gemm has no transposed A and alpha and beta 1, the bias
 * (if any) with zero point 0 and exactly the scale {@code x_scale * w_scale} (so that it adds in the integer domain),
 * and no value inside the group is read from outside it or is a graph output. A Relu or a Clip with constant bounds
 * between the product and QuantizeLinear joins the group: it clamps the output levels to the quantized bounds, which
 * is what quantizing the clamped product gives, QuantizeLinear being monotonic (ONNX Runtime's QDQ selectors take the
 * same activations).
 */
final class QdqFusion {
    /** The fusion's name for Conv. */
    static final String CONV = "QdqConv";
    /** The fusion's name for MatMul. */
    static final String MATMUL = "QdqMatMul";
    /** The fusion's name for Gemm. */
    static final String GEMM = "QdqGemm";

    private QdqFusion() {
    }

    /** A DequantizeLinear that feeds only the anchor: its node, quantized input and constant parameters. */
    private record Dequantize(NodeView node, ValueView quantized, Tensor scale, Tensor zero, long axis) {
    }

    /**
     * Matches at a Conv or MatMul node.
     *
     * @param op the anchor
     * @return the match, or {@code null}
     */
    static FusionMatch match(NodeView op) {
        boolean conv = Pattern.is(op, "Conv");
        boolean gemm = Pattern.is(op, "Gemm");
        if (!conv && !gemm && !Pattern.is(op, "MatMul")) {
            return null;
        }
        int inputs = op.inputs().size();
        if (inputs < 2 || inputs > (conv || gemm ? 3 : 2) || op.outputs().size() != 1
                || gemm && !plainGemm(op, inputs == 3 && op.inputs().get(2) != null)) {
            return null;
        }
        Dequantize x = dequantize(op.inputs().get(0), op);
        Dequantize w = dequantize(op.inputs().get(1), op);
        Dequantize b = inputs == 3 && op.inputs().get(2) != null ? dequantize(op.inputs().get(2), op) : null;
        if (x == null || w == null || inputs == 3 && op.inputs().get(2) != null && b == null
                || x.scale().size() != 1 || x.zero() != null && x.zero().size() != 1) {
            return null;
        }
        Tensor weights = constant(w.quantized()).orElse(null);
        Tensor bias = b == null ? null : constant(b.quantized()).orElse(null);
        if (weights == null || b != null && bias == null) {
            return null;
        }
        ValueView product = Pattern.output(op);
        NodeView next = Pattern.soleConsumer(product);
        ClampRange activation = ClampRange.of(next);
        ValueView quantized = activation == null ? product : Pattern.output(next);
        NodeView quantize = Pattern.soleConsumer(quantized);
        if (!Pattern.is(quantize, "QuantizeLinear") || quantize.inputs().size() != 3 || quantize.outputs().size() != 1
                || quantize.intAttr("block_size", 0) != 0 || quantize.intAttr("precision", 0) != 0
                || !sameValue(quantize.inputs().get(0), quantized)) {
            return null;
        }
        Tensor yScale = floatConstant(quantize.inputs().get(1)).orElse(null);
        Tensor yZero = constant(quantize.inputs().get(2)).orElse(null);
        long outputType = quantize.intAttr("output_dtype", 0);
        if (yScale == null || yZero == null || yScale.size() != 1 || yZero.size() != 1 || !eightBit(yZero.type())
                || outputType != 0 && outputType != code(yZero.type())) {
            return null;
        }
        List<NodeView> nodes = new ArrayList<>(List.of(x.node(), w.node()));
        if (b != null) {
            nodes.add(b.node());
        }
        nodes.add(op);
        if (activation != null) {
            nodes.add(next);
        }
        nodes.add(quantize);
        Tensor xZero = x.zero();
        String xName = x.quantized().name();
        ClampRange range = activation == null ? ClampRange.NONE : activation;
        if (conv) {
            return convMatch(op, nodes, x, w, weights, b, bias, yScale, yZero, xName, xZero, range);
        }
        if (gemm) {
            return gemmMatch(op, nodes, x, w, weights, b, bias, yScale, yZero, xName, xZero, range);
        }
        return matMulMatch(nodes, x, w, weights, null, yScale, yZero, xName, xZero, range, false);
    }

    /**
     * Whether a Gemm is a plain matrix product plus bias: A not transposed, {@code alpha} 1 and, with a C, {@code beta}
     * 1, so that the bias adds to the exact integer accumulators.
     */
    private static boolean plainGemm(NodeView gemm, boolean withC) {
        return gemm.intAttr("transA", 0) == 0 && gemm.floatAttr("alpha", 1f) == 1f
                && (!withC || gemm.floatAttr("beta", 1f) == 1f);
    }

    private static FusionMatch gemmMatch(NodeView op, List<NodeView> nodes, Dequantize x, Dequantize w,
                                         Tensor weights, Dequantize b, Tensor bias, Tensor yScale, Tensor yZero,
                                         String xName, Tensor xZero, ClampRange range) {
        boolean transB = op.intAttr("transB", 0) != 0;
        if (weights.rank() != 2) {
            return null;
        }
        long n = weights.dim(transB ? 0 : 1);
        if (!perChannel(w, n, transB ? 0 : 1, 2) || b != null && !biasFits(b, bias, x.scale(), w.scale(), n)) {
            return null;
        }
        return matMulMatch(nodes, x, w, transB ? Transposed.of(weights) : weights, bias, yScale, yZero, xName,
                xZero, range, true);
    }

    /** Transposes an 8-bit matrix, for a Gemm whose B is stored {@code [n, k]}. */
    private static final class Transposed {
        private Transposed() {
        }

        static Tensor of(Tensor m) {
            int rows = (int) m.dim(0);
            int cols = (int) m.dim(1);
            byte[] src = (byte[]) m.data();
            byte[] out = new byte[src.length];
            for (int r = 0; r < rows; r++) {
                for (int c = 0; c < cols; c++) {
                    out[c * rows + r] = src[r * cols + c];
                }
            }
            return Tensor.of(m.type(), new long[] {cols, rows}, out);
        }
    }

    /**
     * A Relu or a Clip with constant bounds between the product and its QuantizeLinear: the float range it keeps.
     * QuantizeLinear is monotonic, so the range becomes a range of output levels.
     */
    private record ClampRange(float lo, float hi) {
        static final ClampRange NONE = new ClampRange(Float.NEGATIVE_INFINITY, Float.POSITIVE_INFINITY);

        /** The node's range, or {@code null} when it is no such activation. */
        static ClampRange of(NodeView n) {
            if (Pattern.is(n, "Relu") && n.inputs().size() == 1) {
                return new ClampRange(0f, Float.POSITIVE_INFINITY);
            }
            if (!Pattern.is(n, "Clip") || n.inputs().isEmpty() || n.outputs().size() != 1) {
                return null;
            }
            float[] b = ChannelChain.clipBounds(n);
            // a minimum above the maximum makes Clip output the maximum everywhere: left to the nodes
            return b == null || Float.isNaN(b[0]) || Float.isNaN(b[1]) || b[0] > b[1] ? null
                    : new ClampRange(b[0], b[1]);
        }
    }

    private static FusionMatch convMatch(NodeView op, List<NodeView> nodes, Dequantize x, Dequantize w,
                                         Tensor weights, Dequantize b, Tensor bias, Tensor yScale, Tensor yZero,
                                         String xName, Tensor xZero, ClampRange range) {
        if (weights.rank() < 3 || !perChannel(w, weights.dim(0), 0, weights.rank())
                || b != null && !biasFits(b, bias, x.scale(), w.scale(), weights.dim(0))) {
            return null;
        }
        Window.Attrs attrs;
        try {
            attrs = Window.attrs(op, false);
        } catch (RuntimeException e) {
            return null;
        }
        int group = (int) op.intAttr("group", 1);
        if (group < 1 || !eightBit(weights.type()) || w.zero() != null && w.zero().type() != weights.type()) {
            return null;
        }
        // the weights are centred and packed when the kernel is built, not each time the graph is matched
        return new FusionMatch(CONV, nodes, (inputNames, outputNames) -> {
            int xi = inputNames.indexOf(xName);
            QuantizedConv product = QuantizedConv.compile(attrs, group, weights, w.zero(), bias, x.scale(),
                    w.scale(), yScale, yZero);
            if (xi < 0 || outputNames.size() != 1 || product == null) {
                return (in, ctx) -> null;
            }
            QuantizedConv compiled = range == ClampRange.NONE ? product
                    : product.clampedTo(range.lo(), range.hi(), yScale, yZero);
            return (in, ctx) -> {
                Tensor y = compiled.compute(in[xi], xZero, ctx);
                return y == null ? null : new Tensor[] {y};
            };
        }, true);
    }

    /**
     * The match of a MatMul, or of a Gemm whose weights were turned to {@code [k, n]} ({@code gemm}: the input must be
     * a matrix, and a bias may add).
     */
    private static FusionMatch matMulMatch(List<NodeView> nodes, Dequantize x, Dequantize w, Tensor weights,
                                           Tensor bias, Tensor yScale, Tensor yZero, String xName, Tensor xZero,
                                           ClampRange range, boolean gemm) {
        if (weights.rank() != 2 || !gemm && !perChannel(w, weights.dim(1), 1, 2)) {
            return null;
        }
        if (!eightBit(weights.type()) || w.zero() != null && w.zero().type() != weights.type()) {
            return null;
        }
        return new FusionMatch(gemm ? GEMM : MATMUL, nodes, (inputNames, outputNames) -> {
            int xi = inputNames.indexOf(xName);
            QuantizedMatMul product = QuantizedMatMul.compile(weights, w.zero(), x.scale(), w.scale(), yScale,
                    yZero);
            if (product != null && bias != null) {
                product = product.withBias(bias);
            }
            if (xi < 0 || outputNames.size() != 1 || product == null) {
                return (in, ctx) -> null;
            }
            QuantizedMatMul compiled = range == ClampRange.NONE ? product
                    : product.clampedTo(range.lo(), range.hi(), yScale, yZero);
            return (in, ctx) -> {
                if (gemm && in[xi].rank() != 2) {
                    return null;
                }
                Tensor y = compiled.compute(in[xi], xZero, ctx);
                return y == null ? null : new Tensor[] {y};
            };
        }, true);
    }

    /**
     * The DequantizeLinear that produces {@code v} and whose output only {@code reader} reads, with a float32 scale
     * and a zero point (if any) that are constants, not blocked.
     */
    private static Dequantize dequantize(ValueView v, NodeView reader) {
        if (v == null || Pattern.soleConsumer(v) != reader) {
            return null;
        }
        NodeView dq = v.producer().orElse(null);
        if (!Pattern.is(dq, "DequantizeLinear") || dq.inputs().size() < 2 || dq.inputs().size() > 3
                || dq.inputs().get(0) == null || dq.intAttr("block_size", 0) != 0) {
            return null;
        }
        Tensor scale = floatConstant(dq.inputs().get(1)).orElse(null);
        ValueView zeroInput = dq.inputs().size() == 3 ? dq.inputs().get(2) : null;
        Tensor zero = zeroInput == null ? null : constant(zeroInput).orElse(null);
        if (scale == null || zeroInput != null && zero == null || zero != null && zero.size() != scale.size()) {
            return null;
        }
        return new Dequantize(dq, dq.inputs().get(0), scale, zero, dq.intAttr("axis", 1));
    }

    /** Whether weights are quantized per tensor, or per channel along {@code axis} of {@code count} channels. */
    private static boolean perChannel(Dequantize w, long count, int axis, int rank) {
        if (w.scale().size() == 1) {
            return w.scale().rank() <= 1;
        }
        long a = w.axis() < 0 ? w.axis() + rank : w.axis();
        return a == axis && w.scale().rank() == 1 && w.scale().size() == count;
    }

    /**
     * Whether a dequantized bias adds in the integer domain: int32, zero point 0, and a scale (per tensor or per
     * output channel) equal to {@code x_scale * w_scale} as float32 computes it.
     */
    private static boolean biasFits(Dequantize b, Tensor bias, Tensor xScale, Tensor wScale, long cout) {
        if (bias.type() != ElementType.INT32 || bias.rank() != 1 || bias.size() != cout
                || !perChannel(b, cout, 0, 1)) {
            return false;
        }
        if (b.zero() != null) {
            for (int i = 0; i < b.zero().size(); i++) {
                if (b.zero().getLong(i) != 0) {
                    return false;
                }
            }
        }
        float xs = xScale.floats()[0];
        float[] ws = wScale.floats();
        float[] bs = b.scale().floats();
        for (int c = 0; c < cout; c++) {
            float want = xs * ws[ws.length == 1 ? 0 : c];
            if (Float.floatToIntBits(bs[bs.length == 1 ? 0 : c]) != Float.floatToIntBits(want)) {
                return false;
            }
        }
        return true;
    }

    private static boolean eightBit(ElementType t) {
        return t == ElementType.UINT8 || t == ElementType.INT8;
    }

    /** The ONNX code of an 8-bit type, as {@code output_dtype} holds it. */
    private static long code(ElementType t) {
        return t == ElementType.UINT8 ? 2 : 3;
    }

    private static boolean sameValue(ValueView a, ValueView b) {
        return a != null && b != null && a.name().equals(b.name());
    }

    private static Optional<Tensor> constant(ValueView v) {
        return v != null && v.isConstantInitializer() ? v.initializer() : Optional.empty();
    }

    private static Optional<Tensor> floatConstant(ValueView v) {
        return constant(v).filter(t -> t.type() == ElementType.FLOAT);
    }
}
