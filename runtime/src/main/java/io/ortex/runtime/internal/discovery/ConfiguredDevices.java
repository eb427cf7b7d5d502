package io.ortex.runtime.internal.discovery;

import io.ortex.api.HardwareDevice;
import io.ortex.api.HardwareDeviceType;
import io.ortex.api.InvalidArgumentException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * Reads the devices an operator adds through the environment configuration, under
 * {@link DiscoveryConfig#DEVICE_PREFIX}: {@code ortex.device.<id>.type}, {@code .vendor}, {@code .vendor_id},
 * {@code .device_id} and {@code .metadata.<key>}. Stateless.
 */
final class ConfiguredDevices {
    private static final Pattern ID = Pattern.compile("[A-Za-z0-9_-]+");
    private static final Pattern HEX = Pattern.compile("0[xX][0-9a-fA-F]{1,8}");
    private static final Pattern DECIMAL = Pattern.compile("[0-9]{1,10}");

    private ConfiguredDevices() {
    }

    /**
     * Builds the configured devices.
     *
     * @param config the environment configuration; keys outside {@link DiscoveryConfig#DEVICE_PREFIX} are ignored
     * @return the devices ordered by id, with their metadata exactly as configured
     * @throws InvalidArgumentException naming the key at fault when an id is malformed, an attribute is unknown,
     *     a type is missing or unknown, or a number is not a 32-bit decimal or {@code 0x} hexadecimal number
     */
    static SortedMap<String, HardwareDevice> parse(Map<String, String> config) {
        SortedMap<String, SortedMap<String, String>> byId = new TreeMap<>();
        config.forEach((key, value) -> {
            if (key != null && key.startsWith(DiscoveryConfig.DEVICE_PREFIX)) {
                String rest = key.substring(DiscoveryConfig.DEVICE_PREFIX.length());
                int dot = rest.indexOf('.');
                String id = dot < 0 ? rest : rest.substring(0, dot);
                if (dot < 0 || !ID.matcher(id).matches()) {
                    throw new InvalidArgumentException("environment configuration '" + key + "': expected "
                            + DiscoveryConfig.DEVICE_PREFIX + "<id>.<attribute> with an id of [A-Za-z0-9_-]+");
                }
                byId.computeIfAbsent(id, k -> new TreeMap<>()).put(rest.substring(dot + 1), value);
            }
        });
        SortedMap<String, HardwareDevice> devices = new TreeMap<>();
        byId.forEach((id, attributes) -> devices.put(id, device(id, attributes)));
        return devices;
    }

    private static HardwareDevice device(String id, SortedMap<String, String> attributes) {
        String prefix = DiscoveryConfig.DEVICE_PREFIX + id + ".";
        HardwareDeviceType type = null;
        String vendor = DiscoveryConfig.DEFAULT_DEVICE_VENDOR;
        int vendorId = number(prefix + DiscoveryConfig.DEVICE_VENDOR_ID, DiscoveryConfig.DEFAULT_DEVICE_VENDOR_ID);
        int deviceId = number(prefix + DiscoveryConfig.DEVICE_DEVICE_ID, DiscoveryConfig.DEFAULT_DEVICE_DEVICE_ID);
        Map<String, String> metadata = new TreeMap<>();
        for (Map.Entry<String, String> e : attributes.entrySet()) {
            String attribute = e.getKey();
            String value = e.getValue() == null ? "" : e.getValue();
            if (attribute.equals(DiscoveryConfig.DEVICE_TYPE)) {
                type = type(prefix + attribute, value);
            } else if (attribute.equals(DiscoveryConfig.DEVICE_VENDOR)) {
                vendor = value;
            } else if (attribute.equals(DiscoveryConfig.DEVICE_VENDOR_ID)) {
                vendorId = number(prefix + attribute, value);
            } else if (attribute.equals(DiscoveryConfig.DEVICE_DEVICE_ID)) {
                deviceId = number(prefix + attribute, value);
            } else if (attribute.startsWith(DiscoveryConfig.DEVICE_METADATA_PREFIX)
                    && attribute.length() > DiscoveryConfig.DEVICE_METADATA_PREFIX.length()) {
                metadata.put(attribute.substring(DiscoveryConfig.DEVICE_METADATA_PREFIX.length()), value);
            } else {
                throw new InvalidArgumentException("environment configuration '" + prefix + attribute
                        + "': unknown device attribute '" + attribute + "'; expected one of "
                        + List.of(DiscoveryConfig.DEVICE_TYPE, DiscoveryConfig.DEVICE_VENDOR,
                                DiscoveryConfig.DEVICE_VENDOR_ID, DiscoveryConfig.DEVICE_DEVICE_ID,
                                DiscoveryConfig.DEVICE_METADATA_PREFIX + "<key>"));
            }
        }
        if (type == null) {
            throw new InvalidArgumentException("environment configuration '" + prefix + DiscoveryConfig.DEVICE_TYPE
                    + "' is missing: configured device '" + id + "' needs a type, one of " + typeNames());
        }
        return new HardwareDevice(type, vendorId, deviceId, vendor, metadata);
    }

    private static HardwareDeviceType type(String key, String value) {
        try {
            return HardwareDeviceType.valueOf(value.trim().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new InvalidArgumentException("environment configuration '" + key + "': unknown device type '"
                    + value + "'; expected one of " + typeNames());
        }
    }

    /** Parses a 32-bit id: {@code 0x} hexadecimal or decimal, unsigned. */
    private static int number(String key, String value) {
        String text = value.trim();
        long n = -1;
        if (HEX.matcher(text).matches()) {
            n = Long.parseLong(text.substring(2), 16);
        } else if (DECIMAL.matcher(text).matches()) {
            n = Long.parseLong(text);
        }
        if (n < 0 || n > 0xFFFF_FFFFL) {
            throw new InvalidArgumentException("environment configuration '" + key + "': '" + value
                    + "' is not a 32-bit id (decimal, or hexadecimal with 0x)");
        }
        return (int) n;
    }

    private static List<String> typeNames() {
        List<String> names = new ArrayList<>();
        for (HardwareDeviceType t : HardwareDeviceType.values()) {
            names.add(t.name());
        }
        return names;
    }
}
