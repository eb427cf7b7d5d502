package io.ortex.api.spi;

/** The tensor layout an EP prefers for image-like ops, as ONNX Runtime's {@code OrtEpDataLayout}. */
public enum DataLayout {
    /** Channels before spatial axes (ONNX's own layout). */
    NCHW,
    /** Channels last. */
    NHWC
}
