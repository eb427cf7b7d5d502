package io.ortex.runtime.internal.discovery;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SysfsFilesTest {
    @TempDir
    Path dir;

    @Test
    void readsHexWithAndWithoutPrefix() throws IOException {
        assertEquals(0x10de, SysfsFiles.readHex(Files.writeString(dir.resolve("a"), "0x10de\n")));
        assertEquals(0x8086, SysfsFiles.readHex(Files.writeString(dir.resolve("b"), "8086")));
        assertEquals(0x030200, SysfsFiles.readHex(Files.writeString(dir.resolve("c"), " 0X030200 \n")));
        assertEquals(0xffffffff, SysfsFiles.readHex(Files.writeString(dir.resolve("d"), "0xffffffff")));
    }

    @Test
    void rejectsGarbageNamingTheFile() throws IOException {
        for (String text : List.of("", "0x", "nvidia", "0x10de 0x1234", "0x123456789", "-0x1")) {
            Path f = Files.writeString(dir.resolve("vendor"), text);
            IOException e = assertThrows(IOException.class, () -> SysfsFiles.readHex(f), text);
            assertTrue(e.getMessage().contains(f.toString()), e.getMessage());
        }
    }

    @Test
    void failsOnUnreadableFile() throws IOException {
        Path notAFile = Files.createDirectory(dir.resolve("vendor"));
        assertThrows(IOException.class, () -> SysfsFiles.readHex(notAFile));
        assertThrows(IOException.class, () -> SysfsFiles.readHex(dir.resolve("missing")));
    }

    @Test
    void listsOnlyPrefixPlusInteger() throws IOException {
        for (String name : List.of("card0", "card10", "card2", "card0-HDMI-A-1", "renderD128", "cardabc", "card",
                "card01", "card-1", "card99999999999", "version")) {
            Files.createDirectory(dir.resolve(name));
        }
        Map<Integer, Path> cards = new TreeMap<>(SysfsFiles.indexedEntries(dir, "card"));
        assertEquals(Map.of(0, dir.resolve("card0"), 2, dir.resolve("card2"), 10, dir.resolve("card10")), cards);
        assertEquals(List.of(0, 2, 10), List.copyOf(SysfsFiles.indexedEntries(dir, "card").keySet()));
    }

    @Test
    void missingFolderHasNoEntries() throws IOException {
        assertTrue(SysfsFiles.indexedEntries(dir.resolve("nothing"), "card").isEmpty());
    }

    @Test
    void busIdIsTheCanonicalNameWhenItIsAPciAddress() throws IOException {
        Path function = Files.createDirectories(dir.resolve("devices/pci0000:00/0000:65:00.0"));
        Path link = Files.createSymbolicLink(dir.resolve("device"), Path.of("devices/pci0000:00/0000:65:00.0"));
        assertEquals("0000:65:00.0", SysfsFiles.pciBusId(link));
        assertEquals("0000:65:00.0", SysfsFiles.pciBusId(function));
        Path platform = Files.createDirectories(dir.resolve("devices/platform/simple-framebuffer.0"));
        assertNull(SysfsFiles.pciBusId(platform));
        assertNull(SysfsFiles.pciBusId(Files.createDirectories(dir.resolve("0000:65:00"))));
        assertThrows(IOException.class, () -> SysfsFiles.pciBusId(dir.resolve("dangling")));
    }
}
