package io.ortex.ep.cpu.ops;

import io.ortex.api.InvalidArgumentException;
import io.ortex.api.InvalidModelException;
import io.ortex.api.NotImplementedException;
import io.ortex.api.Tensor;
import io.ortex.api.spi.NodeView;
import io.ortex.ep.cpu.CpuKernel;
import io.ortex.ep.cpu.OpRegistry;

/**
 * Element-wise ops: broadcasting arithmetic, comparisons and logic, unary math and activations, Clip, Where, the
 * variadic Max/Min/Sum/Mean, Cast/CastLike, Constant, Identity and Dropout. This class only registers the ops and
 * parses their attributes; the loops live in {@link FloatBinary}, {@link WideBinary}, {@link FloatUnary},
 * {@link Compare} and the other kernel classes of this package.
 */
public final class ElementwiseOps {
    private static final float SELU_ALPHA = 1.67326319217681884765625f;
    private static final float SELU_GAMMA = 1.05070102214813232421875f;

    private ElementwiseOps() {
    }

    /**
     * Registers this group's ops.
     *
     * @param r the registry
     */
    public static void register(OpRegistry r) {
        registerArithmetic(r);
        registerUnary(r);
        registerLogic(r);
        r.register("Clip", ClipKernel::create);
        r.register("Where", node -> (in, ctx) -> new Tensor[] {SelectKernels.where(in[0], in[1], in[2])});
        r.register("Identity", node -> (in, ctx) -> new Tensor[] {in[0]});
        r.register("Dropout", SelectKernels::dropout);
        r.register("Cast", CastKernels::cast);
        r.register("CastLike", CastKernels::castLike);
        r.register("Constant", ConstantKernel::create);
    }

    private static void registerArithmetic(OpRegistry r) {
        binary(r, "Add", BinaryOp.ADD);
        binary(r, "Sub", BinaryOp.SUB);
        binary(r, "Mul", BinaryOp.MUL);
        binary(r, "Div", BinaryOp.DIV);
        binary(r, "PRelu", BinaryOp.PRELU);
        binary(r, "BitwiseAnd", BinaryOp.AND);
        binary(r, "BitwiseOr", BinaryOp.OR);
        binary(r, "BitwiseXor", BinaryOp.XOR);
        r.register("Pow", node -> (in, ctx) -> new Tensor[] {BinaryKernels.pow(in[0], in[1], ctx)});
        r.register("Mod", ElementwiseOps::mod);
        r.register("BitShift", ElementwiseOps::bitShift);
        variadic(r, "Max", BinaryOp.MAX, false);
        variadic(r, "Min", BinaryOp.MIN, false);
        variadic(r, "Sum", BinaryOp.ADD, false);
        variadic(r, "Mean", BinaryOp.ADD, true);
    }

    private static void binary(OpRegistry r, String name, BinaryOp op) {
        r.register(name, node -> (in, ctx) -> new Tensor[] {BinaryKernels.apply(name, op, in[0], in[1], ctx)});
    }

    private static void variadic(OpRegistry r, String name, BinaryOp op, boolean mean) {
        r.register(name, node -> (in, ctx) -> new Tensor[] {BinaryKernels.fold(name, op, mean, in, ctx)});
    }

    private static CpuKernel mod(NodeView node) {
        long fmod = node.intAttr("fmod", 0);
        if (fmod != 0 && fmod != 1) {
            throw new InvalidModelException("Mod attribute 'fmod' must be 0 or 1, got " + fmod);
        }
        return (in, ctx) -> {
            if (in[0].type().isFloatingPoint() && fmod == 0) {
                throw new InvalidArgumentException("Mod attribute 'fmod' must be 1 for " + in[0].type()
                        + " inputs");
            }
            return new Tensor[] {BinaryKernels.apply("Mod", fmod == 1 ? BinaryOp.FMOD : BinaryOp.MOD, in[0], in[1],
                    ctx)};
        };
    }

    private static CpuKernel bitShift(NodeView node) {
        String direction = node.stringAttr("direction", "");
        BinaryOp op;
        if ("LEFT".equals(direction)) {
            op = BinaryOp.SHL;
        } else if ("RIGHT".equals(direction)) {
            op = BinaryOp.SHR;
        } else {
            throw new InvalidModelException("BitShift attribute 'direction' must be LEFT or RIGHT, got '"
                    + direction + "'");
        }
        return (in, ctx) -> {
            if (!in[0].type().isUnsigned()) {
                throw new NotImplementedException("BitShift is defined for unsigned integers, not " + in[0].type());
            }
            return new Tensor[] {BinaryKernels.apply("BitShift", op, in[0], in[1], ctx)};
        };
    }

    private static void registerUnary(OpRegistry r) {
        String[] names = {"Abs", "Neg", "Sqrt", "Reciprocal", "Exp", "Log", "Erf", "Relu", "Sigmoid", "Tanh",
            "HardSwish", "Floor", "Ceil", "Round", "Sign", "Sin", "Cos", "Tan", "Asin", "Acos", "Atan", "Sinh",
            "Cosh", "Asinh", "Acosh", "Atanh", "Softplus", "Softsign", "Mish"};
        UnaryOp[] ops = {UnaryOp.ABS, UnaryOp.NEG, UnaryOp.SQRT, UnaryOp.RECIPROCAL, UnaryOp.EXP, UnaryOp.LOG,
            UnaryOp.ERF, UnaryOp.RELU, UnaryOp.SIGMOID, UnaryOp.TANH, UnaryOp.HARD_SWISH, UnaryOp.FLOOR,
            UnaryOp.CEIL, UnaryOp.ROUND, UnaryOp.SIGN, UnaryOp.SIN, UnaryOp.COS, UnaryOp.TAN, UnaryOp.ASIN,
            UnaryOp.ACOS, UnaryOp.ATAN, UnaryOp.SINH, UnaryOp.COSH, UnaryOp.ASINH, UnaryOp.ACOSH, UnaryOp.ATANH,
            UnaryOp.SOFTPLUS, UnaryOp.SOFTSIGN, UnaryOp.MISH};
        for (int i = 0; i < names.length; i++) {
            String name = names[i];
            UnaryOp op = ops[i];
            r.register(name, node -> unary(name, op, 0f, 0f));
        }
        r.register("LeakyRelu", node -> unary("LeakyRelu", UnaryOp.LEAKY_RELU, node.floatAttr("alpha", 0.01f), 0f));
        r.register("HardSigmoid", node -> unary("HardSigmoid", UnaryOp.HARD_SIGMOID,
                node.floatAttr("alpha", 0.2f), node.floatAttr("beta", 0.5f)));
        r.register("Elu", node -> unary("Elu", UnaryOp.ELU, node.floatAttr("alpha", 1f), 0f));
        r.register("Selu", node -> unary("Selu", UnaryOp.SELU, node.floatAttr("alpha", SELU_ALPHA),
                node.floatAttr("gamma", SELU_GAMMA)));
        r.register("Celu", node -> unary("Celu", UnaryOp.CELU, node.floatAttr("alpha", 1f), 0f));
        r.register("ThresholdedRelu", node -> unary("ThresholdedRelu", UnaryOp.THRESHOLDED_RELU,
                node.floatAttr("alpha", 1f), 0f));
        r.register("Shrink", node -> unary("Shrink", UnaryOp.SHRINK, node.floatAttr("lambd", 0.5f),
                node.floatAttr("bias", 0f)));
        r.register("", "Gelu", 20, ElementwiseOps::gelu);
        r.register("IsNaN", node -> (in, ctx) -> new Tensor[] {UnaryKernels.classify(in[0], true, false, false)});
        r.register("IsInf", node -> {
            boolean negative = node.intAttr("detect_negative", 1) != 0;
            boolean positive = node.intAttr("detect_positive", 1) != 0;
            return (in, ctx) -> new Tensor[] {UnaryKernels.classify(in[0], false, negative, positive)};
        });
        r.register("BitwiseNot", node -> (in, ctx) -> new Tensor[] {UnaryKernels.bitwiseNot(in[0])});
    }

    private static CpuKernel unary(String name, UnaryOp op, float alpha, float beta) {
        return (in, ctx) -> new Tensor[] {UnaryKernels.apply(name, op, in[0], alpha, beta, ctx)};
    }

    private static CpuKernel gelu(NodeView node) {
        String approximate = node.stringAttr("approximate", "none");
        if ("none".equals(approximate)) {
            return unary("Gelu", UnaryOp.GELU, 0f, 0f);
        }
        if ("tanh".equals(approximate)) {
            return unary("Gelu", UnaryOp.GELU_TANH, 0f, 0f);
        }
        throw new NotImplementedException("Gelu attribute 'approximate' = '" + approximate
                + "' is not supported (none or tanh)");
    }

    private static void registerLogic(OpRegistry r) {
        for (Compare.Op op : Compare.Op.values()) {
            r.register(op.opName, node -> (in, ctx) -> new Tensor[] {Compare.compare(op, in[0], in[1], ctx)});
        }
        r.register("And", node -> (in, ctx) -> new Tensor[] {Compare.logic(Compare.Logic.AND, in[0], in[1], ctx)});
        r.register("Or", node -> (in, ctx) -> new Tensor[] {Compare.logic(Compare.Logic.OR, in[0], in[1], ctx)});
        r.register("Xor", node -> (in, ctx) -> new Tensor[] {Compare.logic(Compare.Logic.XOR, in[0], in[1], ctx)});
        r.register("Not", node -> (in, ctx) -> new Tensor[] {UnaryKernels.not(in[0])});
    }
}
