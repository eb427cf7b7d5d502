package io.ortex.ep.cpu.ops.tensor;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

import io.ortex.api.Tensor;
import io.ortex.ep.cpu.OneNodeModel;
import org.junit.jupiter.api.Test;

/** Unit tests of AffineGrid. */
class AffineGridTest {
    private static Tensor longs(long... v) {
        return Tensor.ofLongs(v, v.length);
    }

    @Test
    void affineGridIdentityGivesTheBaseGrid() {
        Tensor theta = Tensor.ofFloats(new float[] {1, 0, 0, 0, 1, 0}, 1, 2, 3);
        Tensor centres = new OneNodeModel("AffineGrid", 20).in(theta).in(longs(1, 1, 1, 2)).run1();
        assertArrayEquals(new long[] {1, 1, 2, 2}, centres.shape());
        assertArrayEquals(new float[] {-0.5f, 0, 0.5f, 0}, centres.floats(), 1e-6f);
        Tensor corners = new OneNodeModel("AffineGrid", 20).in(theta).in(longs(1, 1, 1, 2))
                .attr("align_corners", 1L).run1();
        assertArrayEquals(new float[] {-1, -1, 1, -1}, corners.floats(), 1e-6f);
        // 3-D: a translation by (0.5, 0, 0) on a 1x1x1 volume
        Tensor theta3 = Tensor.ofFloats(new float[] {1, 0, 0, 0.5f, 0, 1, 0, 0, 0, 0, 1, 0}, 1, 3, 4);
        Tensor grid3 = new OneNodeModel("AffineGrid", 20).in(theta3).in(longs(1, 1, 1, 1, 1)).run1();
        assertArrayEquals(new long[] {1, 1, 1, 1, 3}, grid3.shape());
        assertArrayEquals(new float[] {0.5f, 0, 0}, grid3.floats(), 1e-6f);
    }
}
