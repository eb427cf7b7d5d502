package io.ortex.api.spi;

/**
 * The tensor layout an EP prefers for image-like ops, as ONNX Runtime's {@code OrtEpDataLayout}.
 *
 * <p>When an EP of a session prefers {@link #NHWC}, the runtime converts the layout-sensitive nodes the EP claimed, as
 * ONNX Runtime's layout transformer does: the node moves to the domain {@value #NHWC_DOMAIN} under the same op type,
 * version and attributes; its first input is given channels last through a {@code Transpose} node before it, and its
 * first output goes back to channels first through a {@code Transpose} after it. Only the first input and output
 * change layout: a {@code Conv}'s weight stays {@code [M, C/group, kH, kW]} and every other input stays as it was,
 * except that a {@code Resize}'s 4-element {@code scales} or {@code sizes} follow the data into NHWC order. The
 * runtime then cancels the transposes that undo each other (pushing them through element-wise ops such as
 * {@code Relu} first) and folds those of constants, so that a chain of converted nodes keeps its data channels last
 * in between. The layout-sensitive ops are ONNX Runtime's list: {@code BatchNormalization},
 * {@code InstanceNormalization}, {@code Conv}, {@code QLinearConv}, {@code ConvTranspose}, {@code AveragePool},
 * {@code LpPool}, {@code MaxPool}, {@code GlobalAveragePool}, {@code GlobalLpPool}, {@code GlobalMaxPool},
 * {@code LRN}, {@code GridSample}, {@code DepthToSpace}, {@code SpaceToDepth} and {@code Resize}.
 */
public enum DataLayout {
    /** Channels before spatial axes (ONNX's own layout). */
    NCHW,
    /** Channels last. */
    NHWC;

    /**
     * The domain of the nodes converted to NHWC, ONNX Runtime's internal NHWC domain. An EP that prefers NHWC must
     * claim the converted nodes again, or the session fails naming the first it left.
     */
    public static final String NHWC_DOMAIN = "com.ms.internal.nhwc";
}
