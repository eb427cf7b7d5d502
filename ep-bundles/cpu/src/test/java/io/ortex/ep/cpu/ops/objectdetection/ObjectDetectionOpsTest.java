package io.ortex.ep.cpu.ops.objectdetection;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

import io.ortex.api.Tensor;
import io.ortex.ep.cpu.OneNodeModel;
import org.junit.jupiter.api.Test;

/** Focused cases of RoiAlign and MaxRoiPool, worked out by hand. */
class ObjectDetectionOpsTest {
    private static Tensor longs(long... v) {
        return Tensor.ofLongs(v, v.length);
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
