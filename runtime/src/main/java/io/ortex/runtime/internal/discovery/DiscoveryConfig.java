package io.ortex.runtime.internal.discovery;

import io.ortex.api.InvalidArgumentException;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.Map;

/**
 * The environment configuration keys that steer hardware discovery, each with its default beside it. They are read
 * from the map given to {@link io.ortex.api.EnvironmentFactory#create(Map)} (or the runtime's ConfigAdmin
 * configuration in a framework) once, when the environment is created.
 *
 * <p>Devices can be added by configuration with keys of the form
 * <code>{@value #DEVICE_PREFIX}&lt;id&gt;.&lt;attribute&gt;</code>, where {@code <id>} is any token of
 * {@code [A-Za-z0-9_-]+} that groups the entries of one device and orders the configured devices:
 * <pre>
 * ortex.device.npu0.type=NPU
 * ortex.device.npu0.vendor=Acme
 * ortex.device.npu0.vendor_id=0x1234
 * ortex.device.npu0.device_id=0x5678
 * ortex.device.npu0.metadata.pci_bus_id=0000:3b:00.0
 * </pre>
 */
public final class DiscoveryConfig {
    /**
     * The folder read in place of {@code /sys} (for {@code class/drm}, {@code class/accel} and
     * {@code bus/pci/devices}); tests and operators point it at a prepared tree. Default {@value #DEFAULT_SYSFS_ROOT}.
     */
    public static final String SYSFS_ROOT = "ortex.discovery.sysfs_root";
    /** Default of {@link #SYSFS_ROOT}. */
    public static final String DEFAULT_SYSFS_ROOT = "/sys";

    /** The folder read in place of {@code /proc} (for {@code cpuinfo}). Default {@value #DEFAULT_PROCFS_ROOT}. */
    public static final String PROCFS_ROOT = "ortex.discovery.procfs_root";
    /** Default of {@link #PROCFS_ROOT}. */
    public static final String DEFAULT_PROCFS_ROOT = "/proc";

    /** The prefix of every key that adds a device by configuration: {@code ortex.device.<id>.<attribute>}. */
    public static final String DEVICE_PREFIX = "ortex.device.";

    /**
     * Attribute of a configured device: its type, {@code CPU}, {@code GPU} or {@code NPU} (case ignored). Required;
     * there is no default.
     */
    public static final String DEVICE_TYPE = "type";

    /** Attribute of a configured device: its vendor name. Default {@value #DEFAULT_DEVICE_VENDOR} (empty). */
    public static final String DEVICE_VENDOR = "vendor";
    /** Default of {@link #DEVICE_VENDOR}. */
    public static final String DEFAULT_DEVICE_VENDOR = "";

    /**
     * Attribute of a configured device: its PCI vendor id, hexadecimal with {@code 0x} or decimal, at most 32 bits.
     * Default {@value #DEFAULT_DEVICE_VENDOR_ID}.
     */
    public static final String DEVICE_VENDOR_ID = "vendor_id";
    /** Default of {@link #DEVICE_VENDOR_ID}. */
    public static final String DEFAULT_DEVICE_VENDOR_ID = "0";

    /**
     * Attribute of a configured device: the vendor's device id, hexadecimal with {@code 0x} or decimal, at most 32
     * bits. Default {@value #DEFAULT_DEVICE_DEVICE_ID}.
     */
    public static final String DEVICE_DEVICE_ID = "device_id";
    /** Default of {@link #DEVICE_DEVICE_ID}. */
    public static final String DEFAULT_DEVICE_DEVICE_ID = "0";

    /**
     * Attribute prefix of a configured device's metadata: {@code ortex.device.<id>.metadata.<key>=<value>} adds the
     * entry {@code <key>=<value>} exactly as written. Default: no metadata.
     */
    public static final String DEVICE_METADATA_PREFIX = "metadata.";

    private DiscoveryConfig() {
    }

    /**
     * Gets the sysfs root from a configuration.
     *
     * @param config the environment configuration
     * @return the value of {@link #SYSFS_ROOT}, or {@value #DEFAULT_SYSFS_ROOT}
     * @throws InvalidArgumentException when the value is blank or not a path
     */
    static Path sysfsRoot(Map<String, String> config) {
        return root(config, SYSFS_ROOT, DEFAULT_SYSFS_ROOT);
    }

    /**
     * Gets the procfs root from a configuration.
     *
     * @param config the environment configuration
     * @return the value of {@link #PROCFS_ROOT}, or {@value #DEFAULT_PROCFS_ROOT}
     * @throws InvalidArgumentException when the value is blank or not a path
     */
    static Path procfsRoot(Map<String, String> config) {
        return root(config, PROCFS_ROOT, DEFAULT_PROCFS_ROOT);
    }

    private static Path root(Map<String, String> config, String key, String defaultValue) {
        String value = config.getOrDefault(key, defaultValue);
        if (value == null || value.isBlank()) {
            throw new InvalidArgumentException("environment configuration '" + key + "' must name a folder, got '"
                    + value + "'");
        }
        try {
            return Path.of(value.trim());
        } catch (InvalidPathException e) {
            throw new InvalidArgumentException("environment configuration '" + key + "' is not a path: '" + value
                    + "' (" + e.getReason() + ")");
        }
    }
}
