package io.ortex.ep.cpu.ops.math;

import io.ortex.api.Tensor;
import io.ortex.ep.cpu.CpuKernel;
import io.ortex.ep.cpu.OpRegistry;

/**
 * Registers the math ops: element-wise arithmetic, comparisons, logic, unary functions and activations, Clip, the
 * matrix products (MatMul, Gemm, Einsum), Softmax, LogSoftmax and Hardmax, CumSum, CumProd and Det.
 */
public final class MathOps {
    private static final float SELU_ALPHA = 1.67326319217681884765625f;
    private static final float SELU_GAMMA = 1.05070102214813232421875f;

    private MathOps() {
    }

    /**
     * Registers this category's ops.
     *
     * @param r the registry
     */
    public static void register(OpRegistry r) {
        registerArithmetic(r);
        registerUnary(r);
        registerLogic(r);
        r.register("", "Clip", 1, 10, ClipKernel::fromAttributes);
        r.register("", "Clip", 11, ClipKernel::fromInputs);
        r.register("MatMul", MatMulKernel::create);
        r.register("Gemm", GemmKernel::create);
        r.register("Einsum", EinsumKernel::create);
        softmax(r, "Softmax", SoftmaxKernels.Kind.SOFTMAX);
        softmax(r, "LogSoftmax", SoftmaxKernels.Kind.LOG_SOFTMAX);
        softmax(r, "Hardmax", SoftmaxKernels.Kind.HARDMAX);
        r.register("CumSum", CumulativeKernels::cumSum);
        r.register("", "CumProd", 26, CumulativeKernels::cumProd);
        r.register("", "Det", 11, DetKernel::create);
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
        r.register("Mod", BinaryKernels::mod);
        r.register("BitShift", BinaryKernels::bitShift);
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
        r.register("", "Gelu", 20, UnaryKernels::gelu);
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

    private static void registerLogic(OpRegistry r) {
        for (CompareKernels.Op op : CompareKernels.Op.values()) {
            r.register(op.opName, node -> (in, ctx) -> new Tensor[] {CompareKernels.compare(op, in[0], in[1], ctx)});
        }
        r.register("And", node -> (in, ctx) -> new Tensor[] {
            CompareKernels.logic(CompareKernels.Logic.AND, in[0], in[1], ctx)});
        r.register("Or", node -> (in, ctx) -> new Tensor[] {
            CompareKernels.logic(CompareKernels.Logic.OR, in[0], in[1], ctx)});
        r.register("Xor", node -> (in, ctx) -> new Tensor[] {
            CompareKernels.logic(CompareKernels.Logic.XOR, in[0], in[1], ctx)});
        r.register("Not", node -> (in, ctx) -> new Tensor[] {UnaryKernels.not(in[0])});
    }

    /** Softmax-like ops see the input as a matrix before opset 13 and work along one axis from 13 on. */
    private static void softmax(OpRegistry r, String name, SoftmaxKernels.Kind kind) {
        r.register("", name, 1, 12, SoftmaxKernels.factory(kind, true));
        r.register("", name, 13, SoftmaxKernels.factory(kind, false));
    }
}
