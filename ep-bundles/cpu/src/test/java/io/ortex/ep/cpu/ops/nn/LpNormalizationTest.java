package io.ortex.ep.cpu.ops.nn;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.ortex.api.InvalidModelException;
import io.ortex.api.Tensor;
import io.ortex.ep.cpu.OneNodeModel;
import org.junit.jupiter.api.Test;

/** Unit tests of LpNormalization. */
class LpNormalizationTest {

    @Test
    void lpNormalizationL1AndL2() {
        Tensor x = Tensor.ofFloats(new float[] {3, 4, 0, 0}, 2, 2);
        assertArrayEquals(new float[] {0.6f, 0.8f, 0, 0}, new OneNodeModel("LpNormalization", 22).in(x).run1()
                .floats(), 1e-6f);
        assertArrayEquals(new float[] {1, 1, 0, 0}, new OneNodeModel("LpNormalization", 1).in(x).attr("axis", 0L)
                .attr("p", 1L).run1().floats(), 1e-6f);
        assertThrows(InvalidModelException.class,
                () -> new OneNodeModel("LpNormalization", 22).in(x).attr("p", 3L).run1());
    }
}
