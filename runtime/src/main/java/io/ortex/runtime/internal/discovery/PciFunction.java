package io.ortex.runtime.internal.discovery;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The identity of one PCI function read from its sysfs folder: the {@code vendor} and {@code device} files and the
 * folder's canonical name.
 *
 * @param vendorId the PCI vendor id
 * @param deviceId the PCI device id
 * @param busId the PCI bus id such as {@code 0000:65:00.0}, or {@code null} when the folder is not named like one
 */
record PciFunction(int vendorId, int deviceId, String busId) {
    /**
     * Tells whether a device folder looks like a PCI function, that is whether it has a {@code vendor} file. A DRM
     * card or accelerator on a platform bus has none.
     *
     * @param device the device folder
     * @return true when {@code device/vendor} exists
     */
    static boolean isPci(Path device) {
        return Files.exists(device.resolve("vendor"));
    }

    /**
     * Reads a PCI function.
     *
     * @param device the device folder, such as {@code /sys/class/drm/card0/device} or
     *     {@code /sys/bus/pci/devices/0000:65:00.0}
     * @return the function
     * @throws IOException when {@code vendor} or {@code device} cannot be read or holds no hexadecimal number, or the
     *     folder cannot be resolved; the message names the file
     */
    static PciFunction read(Path device) throws IOException {
        int vendorId = SysfsFiles.readHex(device.resolve("vendor"));
        int deviceId = SysfsFiles.readHex(device.resolve("device"));
        return new PciFunction(vendorId, deviceId, SysfsFiles.pciBusId(device));
    }
}
