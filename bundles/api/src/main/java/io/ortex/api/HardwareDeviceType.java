package io.ortex.api;

/** The kind of a hardware device, with ONNX Runtime's {@code OrtHardwareDeviceType} numbers. */
public enum HardwareDeviceType {
    /** A central processing unit. */
    CPU,
    /** A graphics processing unit. */
    GPU,
    /** A neural processing unit. */
    NPU
}
