package io.ortex.ep.example.program;

/**
 * The operations a {@link Program} can hold, one per ONNX operator the example EP claims. Each has a stable
 * {@link #code()} that a serialized program stores instead of the enum's ordinal, so that adding an operation never
 * changes the meaning of programs already written.
 */
public enum OpCode {
    /** ONNX {@code MatMul}: numpy-style matrix product with batch broadcasting. */
    MATMUL(1, "MatMul"),
    /** ONNX {@code Gemm}: {@code alpha * A' * B' + beta * C}. */
    GEMM(2, "Gemm"),
    /** ONNX {@code Add} with multidirectional broadcasting. */
    ADD(3, "Add"),
    /** ONNX {@code Mul} with multidirectional broadcasting. */
    MUL(4, "Mul"),
    /** ONNX {@code Relu}. */
    RELU(5, "Relu"),
    /** ONNX {@code Conv} with one or two spatial dimensions. */
    CONV(6, "Conv"),
    /**
     * {@code Conv} of the NHWC domain ({@link io.ortex.api.spi.DataLayout#NHWC_DOMAIN}): ONNX's Conv on channels-last
     * input and output, the weight as in ONNX.
     */
    CONV_NHWC(7, "Conv");

    private final int code;
    private final String onnxName;

    OpCode(int code, String onnxName) {
        this.code = code;
        this.onnxName = onnxName;
    }

    /**
     * Gets the stable number of this operation in serialized programs.
     *
     * @return the code, at least 1
     */
    public int code() {
        return code;
    }

    /**
     * Gets the ONNX operator type this operation implements.
     *
     * @return the operator type, such as {@code MatMul}
     */
    public String onnxName() {
        return onnxName;
    }

    /**
     * Finds the operation for an ONNX operator type of the default domain.
     *
     * @param opType the operator type
     * @return the operation, or {@code null} when the example EP does not implement it
     */
    public static OpCode forOnnx(String opType) {
        for (OpCode op : values()) {
            if (op != CONV_NHWC && op.onnxName.equals(opType)) {
                return op;
            }
        }
        return null;
    }

    /**
     * Finds the operation for a node's domain and operator type.
     *
     * @param domain the domain, {@code ""} or {@code ai.onnx} for ONNX's, or the NHWC domain
     * @param opType the operator type
     * @return the operation, or {@code null} when the example EP does not implement it
     */
    public static OpCode forNode(String domain, String opType) {
        if (domain.isEmpty() || domain.equals("ai.onnx")) {
            return forOnnx(opType);
        }
        return domain.equals(io.ortex.api.spi.DataLayout.NHWC_DOMAIN) && opType.equals(CONV_NHWC.onnxName)
                ? CONV_NHWC : null;
    }

    /**
     * Finds the operation for a serialized code.
     *
     * @param code the code written by {@link #code()}
     * @return the operation
     * @throws IllegalArgumentException when no operation has that code
     */
    public static OpCode fromCode(int code) {
        for (OpCode op : values()) {
            if (op.code == code) {
                return op;
            }
        }
        throw new IllegalArgumentException("unknown op code " + code);
    }
}
