package io.ortex.runtime.osgi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ortex.api.InvalidArgumentException;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The registration name of a library configured through ConfigAdmin. */
class LibraryConfigurationTest {
    @Test
    void theNameKeyWinsThenTheConfigurationsOwnName() {
        assertEquals("npu", LibraryConfiguration.name(Map.of("name", " npu ", "service.pid",
                "io.ortex.runtime.library~vendor"), "cfg"));
        assertEquals("vendor", LibraryConfiguration.name(Map.of("service.pid", "io.ortex.runtime.library~vendor"),
                "cfg"));
        assertEquals("vendor.virtual", LibraryConfiguration.name(Map.of("service.pid",
                "io.ortex.runtime.library.3f2a-11", "felix.fileinstall.filename",
                "file:/opt/ortex/deploy/io.ortex.runtime.library-vendor.virtual.cfg"), "cfg"));
    }

    @Test
    void aConfigurationWithoutANameIsRefusedNamingItsSource() {
        InvalidArgumentException e = assertThrows(InvalidArgumentException.class, () -> LibraryConfiguration.name(
                Map.of("service.pid", "io.ortex.runtime.library.3f2a-11"), "io.ortex.runtime.library configuration x"));
        assertTrue(e.getMessage().startsWith("io.ortex.runtime.library configuration x: the key 'name'"),
                e.getMessage());
    }
}
