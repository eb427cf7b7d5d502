package io.ortex.ep.ort;

import ai.onnxruntime.OrtEpDevice;
import ai.onnxruntime.OrtHardwareDevice;
import io.ortex.api.EpDevice;
import io.ortex.api.Environment;
import io.ortex.api.EpUnavailableException;
import io.ortex.api.HardwareDevice;
import io.ortex.api.HardwareDeviceType;
import io.ortex.api.spi.SupportedDevice;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Turns ONNX Runtime's EP devices into Ortex's and finds them again when a session is created. A device's hardware
 * is the Ortex hardware device of the same type and PCI vendor (and, for a GPU, bus) when the environment discovered
 * one, so that {@code ortex devices} and {@code ortex eps} agree; otherwise ONNX Runtime's own description (vendor,
 * ids, metadata, {@code is_virtual}). The EP metadata is ONNX Runtime's, without {@code version} (Ortex adds the
 * factory's), plus {@value #ORT_EP_NAME}; the EP options are ONNX Runtime's defaults. Stateless.
 */
final class OrtDevices {
    /** EP metadata: the ONNX Runtime EP behind the device, such as {@code CPUExecutionProvider}. */
    static final String ORT_EP_NAME = "ort.ep_name";
    /** EP metadata: the vendor ONNX Runtime reports for the hardware. */
    static final String ORT_DEVICE_VENDOR = "ort.device_vendor";

    private OrtDevices() {
    }

    /**
     * Describes ONNX Runtime's hardware device in Ortex's terms.
     *
     * @param d ONNX Runtime's device
     * @param known the environment's hardware devices
     * @return the matching known device, or one built from ONNX Runtime's description
     */
    static HardwareDevice hardware(OrtHardwareDevice d, List<HardwareDevice> known) {
        HardwareDeviceType type = HardwareDeviceType.valueOf(d.getType().name());
        Map<String, String> metadata = d.getMetadata();
        boolean virtual = "1".equals(metadata.get(HardwareDevice.IS_VIRTUAL));
        if (!virtual) {
            for (HardwareDevice h : known) {
                if (h.type() == type && h.vendorId() == d.getVendorId() && !h.isVirtual()
                        && samePciBus(h.metadata().get("pci_bus_id"), metadata.get("pci_bus_id"))) {
                    return h;
                }
            }
        }
        return new HardwareDevice(type, d.getVendorId(), d.getDeviceId(), d.getVendor(), metadata);
    }

    private static boolean samePciBus(String a, String b) {
        return a == null || b == null || a.equalsIgnoreCase(b);
    }

    /**
     * Describes an ONNX Runtime EP device as a device an Ortex factory supports.
     *
     * @param d ONNX Runtime's EP device
     * @param known the environment's hardware devices
     * @param extraMetadata more EP metadata
     * @return the supported device
     */
    static SupportedDevice supported(OrtEpDevice d, List<HardwareDevice> known, Map<String, String> extraMetadata) {
        Map<String, String> metadata = new LinkedHashMap<>(d.getEpMetadata());
        metadata.remove(EpDevice.VERSION);
        metadata.put(ORT_EP_NAME, d.getEpName());
        if (!d.getDevice().getVendor().isEmpty()) {
            metadata.put(ORT_DEVICE_VENDOR, d.getDevice().getVendor());
        }
        metadata.putAll(extraMetadata);
        return new SupportedDevice(hardware(d.getDevice(), known), metadata, d.getEpOptions());
    }

    /**
     * Tells whether a device may be offered under an environment configuration: a virtual device only when the
     * environment allows virtual devices.
     *
     * @param device the device
     * @param environmentConfig the environment configuration
     * @return true when it may be offered
     */
    static boolean offered(SupportedDevice device, Map<String, String> environmentConfig) {
        return !device.device().isVirtual() || "1".equals(environmentConfig.get(Environment.ALLOW_VIRTUAL_DEVICES));
    }

    /**
     * Finds, among ONNX Runtime's current EP devices, those a session selected, grouped by ONNX Runtime EP in the
     * order of first appearance (each group is appended to the ONNX Runtime session in one call).
     *
     * @param chosen the devices selected for the session, as this bundle described them
     * @param current ONNX Runtime's EP devices now
     * @return the ONNX Runtime devices, grouped by EP
     * @throws EpUnavailableException naming the device when ONNX Runtime no longer offers it
     */
    static List<List<OrtEpDevice>> resolve(List<SupportedDevice> chosen, List<OrtEpDevice> current) {
        Map<String, List<OrtEpDevice>> byEp = new LinkedHashMap<>();
        for (SupportedDevice s : chosen) {
            String ep = s.epMetadata().get(ORT_EP_NAME);
            OrtEpDevice match = null;
            for (OrtEpDevice d : current) {
                if (d.getEpName().equals(ep) && hardware(d.getDevice(), List.of(s.device())).equals(s.device())) {
                    match = d;
                    break;
                }
            }
            if (match == null) {
                throw new EpUnavailableException("ONNX Runtime no longer offers EP " + ep + " on " + s.device());
            }
            List<OrtEpDevice> group = byEp.computeIfAbsent(ep, k -> new ArrayList<>());
            if (!group.contains(match)) {
                group.add(match);
            }
        }
        return List.copyOf(byEp.values());
    }
}
