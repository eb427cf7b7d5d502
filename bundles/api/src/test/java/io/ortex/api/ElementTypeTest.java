package io.ortex.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.EnumSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

class ElementTypeTest {
    @Test
    void codesRoundTrip() {
        for (ElementType t : ElementType.values()) {
            assertSame(t, ElementType.fromCode(t.code()));
        }
        assertEquals(1, ElementType.FLOAT.code());
        assertEquals(16, ElementType.BFLOAT16.code());
        assertEquals(26, ElementType.INT2.code());
    }

    @Test
    void unknownCodesAreNamed() {
        for (int code : new int[] {0, -1, 27, 1000}) {
            InvalidArgumentException e = assertThrows(InvalidArgumentException.class,
                    () -> ElementType.fromCode(code));
            assertTrue(e.getMessage().contains(Integer.toString(code)), e.getMessage());
        }
    }

    @Test
    void namesResolve() {
        for (ElementType t : ElementType.values()) {
            assertSame(t, ElementType.fromName(t.displayName()));
            assertSame(t, ElementType.fromName(t.name().toLowerCase(java.util.Locale.ROOT)));
            assertEquals(t.displayName(), t.toString());
        }
        assertSame(ElementType.FLOAT, ElementType.fromName("float"));
        assertSame(ElementType.DOUBLE, ElementType.fromName("FLOAT64"));
        InvalidArgumentException e = assertThrows(InvalidArgumentException.class,
                () -> ElementType.fromName("quad"));
        assertTrue(e.getMessage().contains("'quad'"));
    }

    @Test
    void storageMatchesByteSize() {
        for (ElementType t : ElementType.values()) {
            assertEquals(t.storage() != null, t.isSupported());
            if (t.isSupported() && t != ElementType.STRING) {
                Class<?> c = t.storage().getComponentType();
                int bytes = c == boolean.class ? 1 : c == byte.class ? 1 : c == short.class ? 2
                        : c == int.class || c == float.class ? 4 : 8;
                int bits = t.bitWidth();
                assertEquals(bits < 8 ? 0 : bytes, t.byteSize(), t.name());
                assertEquals(bits < 8 ? bits : bytes * 8, bits, t.name());
            }
        }
        assertEquals(0, ElementType.STRING.byteSize());
        assertNull(ElementType.COMPLEX64.storage());
    }

    @Test
    void unsupportedTypesAreTheExoticOnes() {
        Set<ElementType> unsupported = EnumSet.noneOf(ElementType.class);
        for (ElementType t : ElementType.values()) {
            if (!t.isSupported()) {
                unsupported.add(t);
            }
        }
        assertEquals(EnumSet.of(ElementType.COMPLEX64, ElementType.COMPLEX128), unsupported);
    }

    @Test
    void categories() {
        assertEquals(EnumSet.of(ElementType.FLOAT, ElementType.DOUBLE, ElementType.FLOAT16, ElementType.BFLOAT16),
                filter(ElementType::isFloatingPoint));
        assertEquals(EnumSet.of(ElementType.UINT8, ElementType.UINT16, ElementType.UINT32, ElementType.UINT64),
                filter(ElementType::isUnsigned));
        assertEquals(EnumSet.of(ElementType.UINT8, ElementType.INT8, ElementType.UINT16, ElementType.INT16,
                ElementType.UINT32, ElementType.INT32, ElementType.UINT64, ElementType.INT64),
                filter(ElementType::isInteger));
        assertFalse(ElementType.BOOL.isInteger());
        assertEquals(EnumSet.of(ElementType.FLOAT8E4M3FN, ElementType.FLOAT8E4M3FNUZ, ElementType.FLOAT8E5M2,
                ElementType.FLOAT8E5M2FNUZ, ElementType.FLOAT8E8M0, ElementType.FLOAT4E2M1),
                filter(ElementType::isNarrowFloat));
        assertEquals(EnumSet.of(ElementType.INT4, ElementType.UINT4, ElementType.INT2, ElementType.UINT2),
                filter(ElementType::isNarrowInteger));
        for (ElementType t : filter(t -> t.isNarrowFloat() || t.isNarrowInteger())) {
            assertSame(byte[].class, t.storage(), t.name());
        }
        assertEquals(4, ElementType.INT4.bitWidth());
        assertEquals(4, ElementType.FLOAT4E2M1.bitWidth());
        assertEquals(2, ElementType.UINT2.bitWidth());
        assertEquals(8, ElementType.FLOAT8E8M0.bitWidth());
        assertEquals(0, ElementType.STRING.bitWidth());
    }

    @Test
    void integerRanges() {
        assertEquals(-8, ElementType.INT4.minValue());
        assertEquals(7, ElementType.INT4.maxValue());
        assertEquals(0, ElementType.UINT4.minValue());
        assertEquals(15, ElementType.UINT4.maxValue());
        assertEquals(-2, ElementType.INT2.minValue());
        assertEquals(1, ElementType.INT2.maxValue());
        assertEquals(3, ElementType.UINT2.maxValue());
        assertEquals(255, ElementType.UINT8.maxValue());
        assertEquals(Short.MIN_VALUE, ElementType.INT16.minValue());
        assertEquals(0xffff_ffffL, ElementType.UINT32.maxValue());
        assertThrows(InvalidArgumentException.class, ElementType.UINT64::maxValue);
        assertThrows(InvalidArgumentException.class, ElementType.FLOAT::minValue);
    }

    private static Set<ElementType> filter(java.util.function.Predicate<ElementType> p) {
        Set<ElementType> s = EnumSet.noneOf(ElementType.class);
        for (ElementType t : ElementType.values()) {
            if (p.test(t)) {
                s.add(t);
            }
        }
        return s;
    }
}
