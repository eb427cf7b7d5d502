package io.ortex.runtime.internal;

import io.ortex.api.HardwareDevice;
import io.ortex.api.HardwareDeviceType;
import java.util.Map;

/** The hardware that runtime tests give an environment in place of the machine's own. */
public final class TestDevices {
    /** An Intel CPU (vendor id 0x8086) with no metadata. */
    public static final HardwareDevice CPU = new HardwareDevice(HardwareDeviceType.CPU, 0x8086, 0, "GenuineIntel",
            Map.of());

    private TestDevices() {
    }
}
