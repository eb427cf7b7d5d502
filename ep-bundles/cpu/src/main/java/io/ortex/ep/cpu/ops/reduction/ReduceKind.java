package io.ortex.ep.cpu.ops.reduction;

/**
 * The ONNX Reduce* ops: the op name, the value of a reduction over no elements and the opset from which the axes
 * are an input.
 */
enum ReduceKind {
    /** ReduceSum. */
    SUM("ReduceSum", 0, 13),
    /** ReduceMean; the mean of nothing is NaN. */
    MEAN("ReduceMean", Double.NaN, 18),
    /** ReduceMax. */
    MAX("ReduceMax", Double.NEGATIVE_INFINITY, 18),
    /** ReduceMin. */
    MIN("ReduceMin", Double.POSITIVE_INFINITY, 18),
    /** ReduceProd. */
    PROD("ReduceProd", 1, 18),
    /** ReduceL1, the sum of absolute values. */
    L1("ReduceL1", 0, 18),
    /** ReduceL2, the square root of the sum of squares. */
    L2("ReduceL2", 0, 18),
    /** ReduceLogSum, the log of the sum. */
    LOG_SUM("ReduceLogSum", Double.NEGATIVE_INFINITY, 18),
    /** ReduceLogSumExp, the log of the sum of exponentials. */
    LOG_SUM_EXP("ReduceLogSumExp", Double.NEGATIVE_INFINITY, 18),
    /** ReduceSumSquare. */
    SUM_SQUARE("ReduceSumSquare", 0, 18);

    /** The ONNX op type. */
    final String opName;
    /** The result of reducing an empty set, for floating-point types. */
    final double empty;
    /** The first opset where the axes are an input rather than an attribute: 13 for ReduceSum, 18 for the others. */
    final int axesInputSince;

    ReduceKind(String opName, double empty, int axesInputSince) {
        this.opName = opName;
        this.empty = empty;
        this.axesInputSince = axesInputSince;
    }

    /**
     * Tells whether integer inputs are reduced in exact integer arithmetic (otherwise through double).
     *
     * @return true for sum, mean, max, min, prod, L1 and sum of squares
     */
    boolean exactOnIntegers() {
        return this != L2 && this != LOG_SUM && this != LOG_SUM_EXP;
    }
}
