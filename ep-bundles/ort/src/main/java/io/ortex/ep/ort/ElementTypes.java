package io.ortex.ep.ort;

import io.ortex.api.ElementType;
import io.ortex.api.Tensor;
import io.ortex.api.TensorInfo;
import io.ortex.api.spi.Attribute;
import io.ortex.api.spi.GraphView;
import io.ortex.api.spi.NodeView;
import io.ortex.api.spi.ValueView;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The element type of every value of a graph that can be told without running it: declared in the model (graph
 * inputs, initializers, {@code value_info}), or carried forward through operators whose output type follows from
 * their inputs or attributes. A partition handed to ONNX Runtime needs a type for each of its inputs, and values
 * between two partitions are rarely declared. Values of other operators stay unknown, and a node reading one from
 * outside its group is left to another EP. Immutable once built.
 */
final class ElementTypes {
    /** Operators whose outputs all have the type of their first input. */
    private static final Set<String> LIKE_FIRST_INPUT = Set.of(
            "Abs", "Acos", "Acosh", "Add", "Asin", "Asinh", "Atan", "Atanh", "AveragePool", "BatchNormalization",
            "BiasGelu", "Ceil", "Celu", "Clip", "Col2Im", "Compress", "Concat", "Conv", "ConvTranspose", "Cos", "Cosh",
            "CumSum", "DepthToSpace", "Div", "Dropout", "Einsum", "Elu", "Erf", "Exp", "Expand", "FastGelu", "Flatten",
            "Floor", "FusedMatMul", "Gather", "GatherElements", "GatherND", "Gelu", "Gemm", "GlobalAveragePool",
            "GlobalLpPool", "GlobalMaxPool", "GroupNormalization", "HardSigmoid", "HardSwish", "Hardmax", "Identity",
            "InstanceNormalization", "LayerNormalization", "LeakyRelu", "Log", "LogSoftmax", "LpNormalization",
            "LpPool", "LRN", "MatMul", "Max", "MaxPool", "MaxRoiPool", "Mean", "MeanVarianceNormalization", "Min",
            "Mish", "Mod", "Mul", "Neg", "Pad", "Pow", "PRelu", "Reciprocal", "ReduceL1", "ReduceL2",
            "ReduceLogSum", "ReduceLogSumExp", "ReduceMax", "ReduceMean", "ReduceMin", "ReduceProd", "ReduceSum",
            "ReduceSumSquare", "Relu", "Reshape", "Resize", "ReverseSequence", "RMSNormalization", "RoiAlign", "Round",
            "ScatterElements", "ScatterND", "Selu", "Shrink", "Sigmoid", "Sign", "Sin", "Sinh",
            "SkipLayerNormalization",
            "Slice", "Softmax", "Softplus", "Softsign", "SpaceToDepth", "Split", "Sqrt", "Squeeze", "Sub", "Sum", "Tan",
            "Tanh", "ThresholdedRelu", "Tile", "TopK", "Transpose", "Trilu", "Unique", "Unsqueeze", "Upsample");
    /** Operators whose first output is int64. */
    private static final Set<String> INT64_OUTPUT = Set.of("ArgMax", "ArgMin", "NonZero", "Shape", "Size");
    /** Operators whose first output is bool. */
    private static final Set<String> BOOL_OUTPUT = Set.of("And", "Equal", "Greater", "GreaterOrEqual", "IsInf",
            "IsNaN", "Less", "LessOrEqual", "Not", "Or", "Xor");

    private final Map<String, ElementType> types;

    private ElementTypes(Map<String, ElementType> types) {
        this.types = types;
    }

    /**
     * Works out the element types of a graph's values.
     *
     * @param graph the graph
     * @return the types
     */
    static ElementTypes of(GraphView graph) {
        Map<String, ElementType> t = new HashMap<>();
        for (ValueView v : graph.inputs()) {
            declared(v, t);
        }
        for (ValueView v : graph.initializers()) {
            declared(v, t);
        }
        for (NodeView n : graph.nodes()) {
            for (ValueView v : n.inputs()) {
                if (v != null) {
                    declared(v, t);
                }
            }
            List<ValueView> outs = n.outputs();
            for (int i = 0; i < outs.size(); i++) {
                ValueView out = outs.get(i);
                if (out == null) {
                    continue;
                }
                ElementType type = out.typeInfo().map(TensorInfo::type).orElse(null);
                if (type == null) {
                    type = inferred(n, i, t);
                }
                if (type != null) {
                    t.put(out.name(), type);
                }
            }
        }
        return new ElementTypes(Map.copyOf(t));
    }

    private static void declared(ValueView v, Map<String, ElementType> t) {
        v.typeInfo().map(TensorInfo::type).ifPresent(type -> t.putIfAbsent(v.name(), type));
    }

    /**
     * Gets a value's element type.
     *
     * @param value the value's name
     * @return the type, or {@code null} when it cannot be told
     */
    ElementType of(String value) {
        return types.get(value);
    }

    /** The type of output {@code index} of a node whose outputs are not declared, or {@code null}. */
    private static ElementType inferred(NodeView n, int index, Map<String, ElementType> t) {
        if (!n.domain().isEmpty() && !n.domain().equals("com.microsoft")) {
            return null;
        }
        String op = n.opType();
        switch (op) {
            case "Cast":
                return index == 0 ? n.attribute("to").map(a -> code(a.asInt())).orElse(null) : null;
            case "CastLike":
                return index == 0 ? input(n, 1, t) : null;
            case "Constant":
                return index == 0 ? constantType(n) : null;
            case "ConstantOfShape": {
                Tensor value = n.tensorAttr("value");
                return index == 0 ? (value == null ? ElementType.FLOAT : value.type()) : null;
            }
            case "Range":
            case "Where":
                return index == 0 ? input(n, op.equals("Where") ? 1 : 0, t) : null;
            case "DequantizeLinear":
                return index == 0 ? input(n, 1, t) : null;
            case "QuantizeLinear":
                return index == 0 ? (n.inputs().size() > 2 && n.inputs().get(2) != null ? input(n, 2, t)
                        : ElementType.UINT8) : null;
            case "TopK":
            case "MaxPool":
                return index == 0 ? input(n, 0, t) : ElementType.INT64;
            case "Dropout":
                return index == 0 ? input(n, 0, t) : ElementType.BOOL;
            case "Unique":
                return index == 0 ? input(n, 0, t) : ElementType.INT64;
            default:
                break;
        }
        if (INT64_OUTPUT.contains(op)) {
            return index == 0 ? ElementType.INT64 : null;
        }
        if (BOOL_OUTPUT.contains(op)) {
            return index == 0 ? ElementType.BOOL : null;
        }
        if (LIKE_FIRST_INPUT.contains(op)) {
            return input(n, 0, t);
        }
        return null;
    }

    /** The type of a Constant node: its tensor's, or that of its {@code value_*} attribute. */
    private static ElementType constantType(NodeView n) {
        if (n.attribute("value").isPresent()) {
            return n.attribute("value").map(Attribute::asTensor).map(Tensor::type).orElse(null);
        }
        if (n.attribute("value_float").isPresent() || n.attribute("value_floats").isPresent()) {
            return ElementType.FLOAT;
        }
        if (n.attribute("value_int").isPresent() || n.attribute("value_ints").isPresent()) {
            return ElementType.INT64;
        }
        if (n.attribute("value_string").isPresent() || n.attribute("value_strings").isPresent()) {
            return ElementType.STRING;
        }
        return null;
    }

    private static ElementType input(NodeView n, int index, Map<String, ElementType> t) {
        if (index >= n.inputs().size() || n.inputs().get(index) == null) {
            return null;
        }
        ValueView v = n.inputs().get(index);
        ElementType known = t.get(v.name());
        return known != null ? known : v.typeInfo().map(TensorInfo::type).orElse(null);
    }

    private static ElementType code(long code) {
        try {
            return ElementType.fromCode((int) code);
        } catch (RuntimeException e) {
            return null;
        }
    }
}
