package io.ortex.shell.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ortex.api.ElementType;
import io.ortex.api.InvalidArgumentException;
import io.ortex.api.Tensor;
import io.ortex.api.TensorInfo;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class RandomInputsTest {
    private static TensorInfo info(String name, ElementType type, long... dims) {
        return new TensorInfo(name, type, dims, java.util.Collections.nCopies(dims.length, ""));
    }

    @Test
    void floatsAreInMinusOneToOne() {
        Tensor t = RandomInputs.make(info("x", ElementType.FLOAT, 10, 10), Map.of(), new SplittableRandom(1));
        assertArrayEquals(new long[] {10, 10}, t.shape());
        for (float f : t.floats()) {
            assertTrue(f >= -1 && f < 1, Float.toString(f));
        }
    }

    @Test
    void integersAreZeroOrOne() {
        Tensor t = RandomInputs.make(info("ids", ElementType.INT64, 50), Map.of(), new SplittableRandom(1));
        for (long v : t.longs()) {
            assertTrue(v == 0 || v == 1);
        }
        Tensor u8 = RandomInputs.make(info("b", ElementType.UINT8, 50), Map.of(), new SplittableRandom(1));
        assertEquals(ElementType.UINT8, u8.type());
    }

    @Test
    void symbolicDimensionsAreOneUnlessGiven() {
        TensorInfo sym = info("x", ElementType.FLOAT, -1, 3);
        assertArrayEquals(new long[] {1, 3}, RandomInputs.make(sym, Map.of(), new SplittableRandom(1)).shape());
        assertArrayEquals(new long[] {5, 3}, RandomInputs.make(sym, Map.of("x", new long[] {5, 3}),
                new SplittableRandom(1)).shape());
        assertEquals(-1, sym.dims()[0], "the declared info is not changed");
    }

    @Test
    void anInputWithoutShapeNeedsOne() {
        TensorInfo none = new TensorInfo("mystery", ElementType.FLOAT, null, null);
        UsageException e = assertThrows(UsageException.class,
                () -> RandomInputs.make(none, Map.of(), new SplittableRandom(1)));
        assertTrue(e.getMessage().contains("'mystery'") && e.getMessage().contains("--shape"), e.getMessage());
    }

    @Test
    void aShapeTooLargeToAllocateNamesTheInput() {
        InvalidArgumentException e = assertThrows(InvalidArgumentException.class, () -> RandomInputs.make(
                info("big", ElementType.FLOAT, 1L << 20, 1L << 20), Map.of(), new SplittableRandom(1)));
        assertTrue(e.getMessage().contains("'big'"), e.getMessage());
    }

    @Test
    void parsesShapes() {
        assertArrayEquals(new long[] {1, 3, 224, 224}, RandomInputs.parseShape("1x3x224x224", "--shape x"));
        assertArrayEquals(new long[0], RandomInputs.parseShape("scalar", "--shape x"));
        assertArrayEquals(new long[0], RandomInputs.parseShape("", "--shape x"));
        assertArrayEquals(new long[] {0, 2}, RandomInputs.parseShape("0x2", "--shape x"));
        for (String bad : List.of("2x", "x2", "2xx3", "a", "2x-1", "2.5")) {
            UsageException e = assertThrows(UsageException.class, () -> RandomInputs.parseShape(bad, "--shape x"),
                    bad);
            assertTrue(e.getMessage().startsWith("--shape x"), e.getMessage());
        }
    }

    @Test
    void theSameSeedGivesTheSameTensor() {
        TensorInfo x = info("x", ElementType.DOUBLE, 4);
        assertArrayEquals(RandomInputs.make(x, Map.of(), new SplittableRandom(9)).doubles(),
                RandomInputs.make(x, Map.of(), new SplittableRandom(9)).doubles());
    }
}
