package io.ortex.runtime.internal.discovery;

import io.ortex.api.Names;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collections;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Reading helpers for sysfs: hexadecimal attribute files, indexed class entries and PCI bus ids. Stateless. */
final class SysfsFiles {
    /** A PCI address {@code dddd:bb:dd.f} in hexadecimal, as sysfs names PCI functions. */
    private static final Pattern PCI_BUS_ID =
            Pattern.compile("[0-9a-fA-F]{4}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\\.[0-9a-fA-F]");
    private static final Pattern HEX = Pattern.compile("(?:0[xX])?([0-9a-fA-F]{1,8})");

    private SysfsFiles() {
    }

    /**
     * Reads a file holding one hexadecimal number, such as {@code 0x10de} in a PCI {@code vendor} file.
     *
     * @param file the file
     * @return the number, at most 32 bits
     * @throws IOException when the file cannot be read or does not hold such a number; the message names the file
     */
    static int readHex(Path file) throws IOException {
        String text = Files.readString(file).trim();
        Matcher m = HEX.matcher(text);
        if (!m.matches()) {
            throw new IOException(file + ": not a 32-bit hexadecimal number: " + Names.quote(abbreviate(text)));
        }
        return Integer.parseUnsignedInt(m.group(1), 16);
    }

    /**
     * Lists the entries of a sysfs class folder named {@code prefix} followed by a decimal index ({@code card0},
     * {@code accel3}); other names ({@code card0-HDMI-A-1}, {@code renderD128}, {@code accelabc}) are left out.
     *
     * @param dir the folder, such as {@code /sys/class/drm}
     * @param prefix the name before the index
     * @return the entries by index, ascending; empty when the folder does not exist
     * @throws IOException when the folder exists but cannot be listed
     */
    static SortedMap<Integer, Path> indexedEntries(Path dir, String prefix) throws IOException {
        if (!Files.isDirectory(dir)) {
            return Collections.emptySortedMap();
        }
        Pattern name = Pattern.compile(Pattern.quote(prefix) + "(0|[1-9][0-9]{0,8})");
        SortedMap<Integer, Path> entries = new TreeMap<>();
        try (DirectoryStream<Path> stream = Files.newDirectoryStream(dir)) {
            for (Path p : stream) {
                Matcher m = name.matcher(p.getFileName().toString());
                if (m.matches()) {
                    entries.put(Integer.parseInt(m.group(1)), p);
                }
            }
        }
        return entries;
    }

    /**
     * Finds the PCI bus id of a device folder: the name of its canonical path when that is a PCI address.
     *
     * @param device a device folder or a link to one, such as {@code /sys/class/drm/card0/device}
     * @return the bus id such as {@code 0000:65:00.0}, or {@code null} when the device is not named like one
     * @throws IOException when the path cannot be resolved
     */
    static String pciBusId(Path device) throws IOException {
        Path name = device.toRealPath().getFileName();
        if (name == null) {
            return null;
        }
        String id = name.toString();
        return PCI_BUS_ID.matcher(id).matches() ? id : null;
    }

    private static String abbreviate(String text) {
        return text.length() <= 40 ? text : text.substring(0, 40) + "...";
    }
}
