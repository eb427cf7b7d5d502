package io.ortex.ep.cpu.ops;

/** The ONNX Reduce* ops: the op name and the value of a reduction over no elements. */
enum ReduceKind {
    /** ReduceSum. */
    SUM("ReduceSum", 0),
    /** ReduceMean; the mean of nothing is NaN. */
    MEAN("ReduceMean", Double.NaN),
    /** ReduceMax. */
    MAX("ReduceMax", Double.NEGATIVE_INFINITY),
    /** ReduceMin. */
    MIN("ReduceMin", Double.POSITIVE_INFINITY),
    /** ReduceProd. */
    PROD("ReduceProd", 1),
    /** ReduceL1, the sum of absolute values. */
    L1("ReduceL1", 0),
    /** ReduceL2, the square root of the sum of squares. */
    L2("ReduceL2", 0),
    /** ReduceLogSum, the log of the sum. */
    LOG_SUM("ReduceLogSum", Double.NEGATIVE_INFINITY),
    /** ReduceLogSumExp, the log of the sum of exponentials. */
    LOG_SUM_EXP("ReduceLogSumExp", Double.NEGATIVE_INFINITY),
    /** ReduceSumSquare. */
    SUM_SQUARE("ReduceSumSquare", 0);

    /** The ONNX op type. */
    final String opName;
    /** The result of reducing an empty set, for floating-point types. */
    final double empty;

    ReduceKind(String opName, double empty) {
        this.opName = opName;
        this.empty = empty;
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
