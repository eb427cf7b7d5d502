package io.ortex.runtime.internal;

import io.ortex.api.EpDevice;
import io.ortex.api.Environment;
import io.ortex.api.ErrorCode;
import io.ortex.api.HardwareDevice;
import io.ortex.api.InvalidArgumentException;
import io.ortex.api.OrtexException;
import io.ortex.api.spi.EpFactory;
import io.ortex.api.spi.SupportedDevice;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * Asks an EP factory for the devices it supports ({@code GetSupportedDevices}) and turns its answer into EP devices,
 * with the EP's version in their metadata; when it offers none, says why: its virtual devices are not granted, the
 * hardware found has nothing it supports, or it failed. Stateless.
 */
final class FactoryDevices {
    /** The reason of a factory that offers only virtual devices to a library without the grant. */
    static final String NOT_GRANTED = "virtual devices not granted (virtual.grants, allow_virtual_devices=1 or a "
            + ".virtual name)";

    private static final Pattern SEMVER = Pattern.compile(
            "(0|[1-9]\\d*)\\.(0|[1-9]\\d*)\\.(0|[1-9]\\d*)(-[0-9A-Za-z.-]+)?(\\+[0-9A-Za-z.-]+)?");

    /**
     * One factory's answer.
     *
     * @param factory the factory
     * @param vendorId the PCI vendor id it reported
     * @param devices the EP devices it offers
     * @param reason why it offers none; empty when it offers some
     */
    record Listing(EpFactory factory, int vendorId, List<EpDevice> devices, String reason) {
        /**
         * Copies the devices.
         *
         * @param factory the factory
         * @param vendorId its vendor id
         * @param devices its devices
         * @param reason why it offers none
         */
        Listing {
            devices = List.copyOf(devices);
        }
    }

    private FactoryDevices() {
    }

    /**
     * Lists what a factory offers.
     *
     * @param library the library's registration name, for messages
     * @param factory the factory
     * @param hardware the hardware devices
     * @param config the environment configuration as the factory sees it
     * @param strict whether a failing or invalid factory throws; otherwise it offers no device and the failure is the
     *               reason
     * @return the answer
     * @throws OrtexException when {@code strict} and the factory fails or is invalid
     */
    static Listing list(String library, EpFactory factory, List<HardwareDevice> hardware,
                        Map<String, String> config, boolean strict) {
        int vendorId;
        List<EpDevice> devices;
        try {
            vendorId = vendorIdOf(library, factory);
            devices = devicesOf(library, factory, hardware, config);
        } catch (OrtexException e) {
            if (strict) {
                throw e;
            }
            return new Listing(factory, 0, List.of(), "factory failed: " + e.getMessage());
        }
        if (!devices.isEmpty()) {
            return new Listing(factory, vendorId, devices, "");
        }
        return new Listing(factory, vendorId, devices, whyNone(library, factory, hardware, config));
    }

    private static String whyNone(String library, EpFactory factory, List<HardwareDevice> hardware,
                                  Map<String, String> config) {
        if (!"1".equals(config.get(Environment.ALLOW_VIRTUAL_DEVICES))) {
            Map<String, String> granted = new LinkedHashMap<>(config);
            granted.put(Environment.ALLOW_VIRTUAL_DEVICES, "1");
            try {
                if (!devicesOf(library, factory, hardware, granted).isEmpty()) {
                    return NOT_GRANTED;
                }
            } catch (OrtexException e) {
                // asked again only to find the reason; the first answer stands
            }
        }
        List<String> found = hardware.stream().map(h -> h.type() + " " + h.vendor()).toList();
        return "no supported hardware among the devices found " + found;
    }

    private static int vendorIdOf(String library, EpFactory f) {
        try {
            return f.vendorId();
        } catch (RuntimeException e) {
            throw new OrtexException(ErrorCode.FAIL, "EP factory '" + f.name() + "' of library '" + library
                    + "' failed to give its vendor id: " + e, e);
        }
    }

    private static List<EpDevice> devicesOf(String library, EpFactory f, List<HardwareDevice> hardware,
                                            Map<String, String> config) {
        String version;
        try {
            version = f.version();
        } catch (RuntimeException e) {
            throw new OrtexException(ErrorCode.FAIL, "EP factory '" + f.name() + "' of library '" + library
                    + "' failed to give its version: " + e.getMessage(), e);
        }
        if (version == null || !SEMVER.matcher(version).matches()) {
            throw new InvalidArgumentException("EP factory '" + f.name() + "' of library '" + library
                    + "' has version '" + version + "', which is not SemVer 2.0");
        }
        List<SupportedDevice> supported;
        try {
            supported = f.supportedDevices(hardware, config);
        } catch (RuntimeException e) {
            throw new OrtexException(ErrorCode.FAIL, "EP factory '" + f.name() + "' of library '" + library
                    + "' failed to list its devices: " + e, e);
        }
        List<EpDevice> out = new ArrayList<>();
        for (SupportedDevice d : supported == null ? List.<SupportedDevice>of() : supported) {
            if (d == null) {
                continue;
            }
            if (d.epMetadata().containsKey(EpDevice.VERSION)) {
                throw new InvalidArgumentException("EP factory '" + f.name() + "' must not set the 'version' "
                        + "metadata itself");
            }
            Map<String, String> metadata = new LinkedHashMap<>(d.epMetadata());
            metadata.put(EpDevice.VERSION, version);
            out.add(new EpDevice(f.name(), f.vendor(), metadata, d.epOptions(), d.device()));
        }
        return out;
    }
}
