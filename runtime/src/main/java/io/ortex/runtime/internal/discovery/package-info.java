/**
 * Hardware discovery on Linux: the CPU from {@code /proc/cpuinfo}, GPUs from {@code /sys/class/drm} with a
 * {@code /sys/bus/pci/devices} fallback, NPUs from {@code /sys/class/accel}, and devices added by environment
 * configuration. {@link io.ortex.runtime.internal.discovery.HardwareDiscovery} is the entry point and
 * {@link io.ortex.runtime.internal.discovery.DiscoveryConfig} lists the configuration keys. A device whose files
 * cannot be read is skipped with a warning; the other devices are still reported. Private to the bundle.
 */
package io.ortex.runtime.internal.discovery;
