package io.ortex.shell.internal;

import io.ortex.api.DeviceIncompatibility;
import io.ortex.api.Environment;
import io.ortex.api.HardwareDevice;
import io.ortex.api.Names;
import io.ortex.api.OrtexException;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * A device an EP does not offer, with what its factory says about it (ONNX Runtime's
 * {@code GetHardwareDeviceIncompatibilityDetails}): shown by {@code ortex eps --verbose}.
 *
 * @param ep the EP name
 * @param device the device the EP does not offer
 * @param details the factory's answer; {@code null} when it could not be asked (its library is being removed)
 */
record Incompatibility(String ep, HardwareDevice device, DeviceIncompatibility details) {
    /**
     * Lists, for every EP of the rows, each device of the environment it does not offer.
     *
     * @param env the environment
     * @param rows the rows of {@code ortex eps}
     * @param devices the hardware devices and the virtual devices EPs offer
     * @return the devices not offered, by EP in the rows' order
     */
    static List<Incompatibility> of(Environment env, List<EpRow> rows, List<HardwareDevice> devices) {
        Set<String> eps = new LinkedHashSet<>();
        rows.forEach(r -> eps.add(r.ep()));
        List<Incompatibility> out = new ArrayList<>();
        for (String ep : eps) {
            Set<HardwareDevice> offered = new LinkedHashSet<>();
            for (EpRow r : rows) {
                if (r.ep().equals(ep) && r.device() != null) {
                    offered.add(r.device().device());
                }
            }
            for (HardwareDevice d : devices) {
                if (!offered.contains(d)) {
                    out.add(new Incompatibility(ep, d, ask(env, ep, d)));
                }
            }
        }
        return out;
    }

    private static DeviceIncompatibility ask(Environment env, String ep, HardwareDevice device) {
        try {
            return env.deviceIncompatibility(ep, device);
        } catch (OrtexException e) {
            return null;
        }
    }

    /**
     * Names the reasons of the bitmask, as ONNX Runtime's {@code OrtDeviceEpIncompatibilityReason} does.
     *
     * @return the reasons, lower case; empty when the factory gave none
     */
    List<String> reasons() {
        List<String> names = new ArrayList<>();
        int bits = details == null ? 0 : details.reasons();
        if ((bits & DeviceIncompatibility.DRIVER_INCOMPATIBLE) != 0) {
            names.add("driver incompatible");
        }
        if ((bits & DeviceIncompatibility.DEVICE_INCOMPATIBLE) != 0) {
            names.add("device incompatible");
        }
        if ((bits & DeviceIncompatibility.MISSING_DEPENDENCY) != 0) {
            names.add("missing dependency");
        }
        if ((bits & DeviceIncompatibility.UNKNOWN) != 0) {
            names.add("unknown");
        }
        return names;
    }

    /**
     * Describes the device: type, vendor, and whether it is virtual.
     *
     * @return the description
     */
    String deviceText() {
        return device.type() + " " + device.vendor() + (device.isVirtual() ? " (virtual)" : "");
    }

    /**
     * Says what the factory answered, on one line.
     *
     * @return the reasons, error code and notes, or why there are none
     */
    String detailsText() {
        if (details == null) {
            return "its factory cannot be asked now";
        }
        if (details.isCompatible()) {
            return "not offered; its factory gives no reason";
        }
        StringBuilder b = new StringBuilder(String.join(", ", reasons()));
        if (details.errorCode() != 0) {
            b.append(b.length() == 0 ? "" : "; ").append("error code ").append(details.errorCode());
        }
        if (!details.notes().isEmpty()) {
            b.append(b.length() == 0 ? "" : "; ").append(details.notes());
        }
        return Names.oneLine(b.toString());
    }
}
