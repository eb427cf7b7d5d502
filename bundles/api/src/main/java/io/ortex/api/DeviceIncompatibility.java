package io.ortex.api;

/**
 * Why an EP cannot use a hardware device, as its factory reports it (ONNX Runtime's
 * {@code OrtDeviceEpIncompatibilityDetails}).
 *
 * @param reasons a bitmask of {@link #DRIVER_INCOMPATIBLE}, {@link #DEVICE_INCOMPATIBLE},
 *     {@link #MISSING_DEPENDENCY} and {@link #UNKNOWN}; 0 means compatible
 * @param errorCode an EP-specific error code, 0 when none
 * @param notes a human-readable explanation, possibly empty
 */
public record DeviceIncompatibility(int reasons, int errorCode, String notes) {
    /** No reason: the device is compatible. */
    public static final int NONE = 0;
    /** The driver is too old or otherwise unsuitable. */
    public static final int DRIVER_INCOMPATIBLE = 1;
    /** The device itself cannot run this EP. */
    public static final int DEVICE_INCOMPATIBLE = 2;
    /** A library the EP needs is missing. */
    public static final int MISSING_DEPENDENCY = 4;
    /** Some other reason. */
    public static final int UNKNOWN = 1 << 31;

    /** The answer for a compatible device. */
    public static final DeviceIncompatibility COMPATIBLE = new DeviceIncompatibility(NONE, 0, "");

    /**
     * Creates the details.
     *
     * @param reasons the reason bitmask
     * @param errorCode the EP's error code
     * @param notes the explanation
     */
    public DeviceIncompatibility {
        notes = notes == null ? "" : notes;
    }

    /**
     * Tells whether the device is compatible.
     *
     * @return true when no reason is set
     */
    public boolean isCompatible() {
        return reasons == NONE;
    }
}
