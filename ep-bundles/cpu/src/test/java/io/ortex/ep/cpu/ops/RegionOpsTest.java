package io.ortex.ep.cpu.ops;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.ortex.api.InvalidArgumentException;
import io.ortex.api.Tensor;
import org.junit.jupiter.api.Test;

/** Focused cases of AffineGrid, Col2Im, DeformConv, RoiAlign and MaxRoiPool, worked out by hand. */
class RegionOpsTest {
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

    @Test
    void roiAlignAveragesBilinearSamples() {
        // a ramp x + 10 y: bilinear samples are exact, so a bin's average is the ramp at its centre
        float[] img = new float[16];
        for (int i = 0; i < 4; i++) {
            for (int j = 0; j < 4; j++) {
                img[i * 4 + j] = j + 10 * i;
            }
        }
        Tensor x = Tensor.ofFloats(img, 1, 1, 4, 4);
        Tensor rois = Tensor.ofFloats(new float[] {0, 0, 2, 2}, 1, 4);
        Tensor y = new OneNodeModel("RoiAlign", 16).in(x).in(rois).in(longs(0)).attr("output_height", 1L)
                .attr("output_width", 2L).attr("sampling_ratio", 2L).run1();
        // half_pixel: region [-0.5, 1.5]; samples x = -0.25 (clamped to 0), 0.25 | 0.75, 1.25 and y = 0, 1
        assertArrayEquals(new long[] {1, 1, 1, 2}, y.shape());
        assertArrayEquals(new float[] {5.125f, 6}, y.floats(), 1e-4f);
        Tensor old = new OneNodeModel("RoiAlign", 10).in(x).in(rois).in(longs(0)).attr("output_height", 1L)
                .attr("output_width", 1L).attr("sampling_ratio", 1L).run1();
        assertArrayEquals(new float[] {11}, old.floats(), 1e-4f);
    }

    @Test
    void maxRoiPoolTakesTheBinMaxima() {
        float[] img = new float[16];
        for (int i = 0; i < 16; i++) {
            img[i] = i;
        }
        Tensor x = Tensor.ofFloats(img, 1, 1, 4, 4);
        Tensor rois = Tensor.ofFloats(new float[] {0, 0, 0, 3, 3}, 1, 5);
        Tensor y = new OneNodeModel("MaxRoiPool", 1).in(x).in(rois).ints("pooled_shape", 2, 2).run1();
        assertArrayEquals(new float[] {5, 7, 13, 15}, y.floats(), 1e-6f);
    }
}
