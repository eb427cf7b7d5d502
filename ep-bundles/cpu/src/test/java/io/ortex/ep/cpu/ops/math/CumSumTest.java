package io.ortex.ep.cpu.ops.math;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

import io.ortex.api.Tensor;
import io.ortex.testing.OneNodeModel;
import org.junit.jupiter.api.Test;

/** Unit tests of CumSum. */
class CumSumTest {

    static Tensor floats(long[] shape, float... v) {
        return Tensor.ofFloats(v, shape);
    }

    static long[] s(long... dims) {
        return dims;
    }

    @Test
    void cumSumExclusiveAndReversed() {
        Tensor c = new OneNodeModel("CumSum", 14).attr("exclusive", 1L).attr("reverse", 1L)
                .in("x", floats(s(3), 1, 2, 3))
                .in("a", Tensor.ofInts(new int[] {0})).run1();
        assertArrayEquals(new float[] {5, 3, 0}, c.floats());
    }
}
