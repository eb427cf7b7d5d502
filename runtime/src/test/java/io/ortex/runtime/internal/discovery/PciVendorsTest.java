package io.ortex.runtime.internal.discovery;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class PciVendorsTest {
    @Test
    void namesTheCommonGpuAndNpuVendors() {
        assertEquals("NVIDIA", PciVendors.name(0x10de));
        assertEquals("AMD", PciVendors.name(0x1002));
        assertEquals("Intel", PciVendors.name(0x8086));
        assertEquals("ARM", PciVendors.name(0x13b5));
        assertEquals("Qualcomm", PciVendors.name(0x5143));
        assertEquals("Microsoft", PciVendors.name(0x1414));
        assertEquals("Huawei", PciVendors.name(0x19e5));
    }

    @Test
    void unknownVendorHasAnEmptyName() {
        assertEquals("", PciVendors.name(0x1234));
        assertEquals("", PciVendors.name(0x1022));
        assertEquals("", PciVendors.name(0));
    }
}
