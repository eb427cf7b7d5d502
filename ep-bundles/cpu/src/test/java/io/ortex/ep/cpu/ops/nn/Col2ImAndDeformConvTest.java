package io.ortex.ep.cpu.ops.nn;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.ortex.api.InvalidArgumentException;
import io.ortex.api.Tensor;
import io.ortex.ep.cpu.OneNodeModel;
import org.junit.jupiter.api.Test;

/** Unit tests of Col2Im and DeformConv. */
class Col2ImAndDeformConvTest {
    private static Tensor longs(long... v) {
        return Tensor.ofLongs(v, v.length);
    }

    @Test
    void col2imAddsOverlappingBlocks() {
        // a 1x3 image, blocks of 1x2 at stride 1: positions 0 and 1 overlap on pixel 1
        Tensor cols = Tensor.ofFloats(new float[] {1, 2, 10, 20}, 1, 2, 2);
        Tensor y = new OneNodeModel("Col2Im", 18).in(cols).in(longs(1, 3)).in(longs(1, 2)).run1();
        assertArrayEquals(new long[] {1, 1, 1, 3}, y.shape());
        assertArrayEquals(new float[] {1, 12, 20}, y.floats(), 1e-6f);
        assertThrows(InvalidArgumentException.class, () -> new OneNodeModel("Col2Im", 18).in(cols)
                .in(longs(1, 4)).in(longs(1, 2)).run1());
    }

    @Test
    void deformConvWithZeroOffsetsIsAConvolutionAndOffsetsShiftTheTaps() {
        Tensor x = Tensor.ofFloats(new float[] {1, 2, 3, 4, 5, 6, 7, 8, 9}, 1, 1, 3, 3);
        Tensor w = Tensor.ofFloats(new float[] {1, 1, 1, 1}, 1, 1, 2, 2);
        Tensor zero = Tensor.ofFloats(new float[32], 1, 8, 2, 2);
        Tensor y = new OneNodeModel("DeformConv", 22).in(x).in(w).in(zero).run1();
        assertArrayEquals(new float[] {12, 16, 24, 28}, y.floats(), 1e-5f);
        // every tap moved half a pixel right: each sample averages two neighbours, past the edge counts 0
        float[] off = new float[32];
        for (int tap = 0; tap < 4; tap++) {
            for (int p = 0; p < 4; p++) {
                off[(2 * tap + 1) * 4 + p] = 0.5f;
            }
        }
        Tensor shifted = new OneNodeModel("DeformConv", 22).in(x).in(w).in(Tensor.ofFloats(off, 1, 8, 2, 2))
                .in(Tensor.ofFloats(new float[] {1}, 1)).run1();
        assertArrayEquals(new float[] {15, 13.5f, 27, 22.5f}, shifted.floats(), 1e-5f);
    }
}
