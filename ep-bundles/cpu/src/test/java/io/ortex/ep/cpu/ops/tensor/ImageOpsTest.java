package io.ortex.ep.cpu.ops.tensor;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.ortex.api.InvalidArgumentException;
import io.ortex.api.Tensor;
import io.ortex.ep.cpu.OneNodeModel;
import org.junit.jupiter.api.Test;

/** Focused cases of GridSample and CenterCropPad, worked out by hand. */
class ImageOpsTest {
    private static final Tensor X = Tensor.ofFloats(new float[] {1, 2, 3, 4}, 1, 1, 2, 2);

    private static Tensor grid(float... xy) {
        return Tensor.ofFloats(xy, 1, 1, xy.length / 2, 2);
    }

    @Test
    void gridSampleBilinearWithAlignedCorners() {
        // corners, the centre, and the middle of the top edge; component 0 is x (the width axis)
        Tensor g = grid(-1, -1, 1, -1, -1, 1, 1, 1, 0, 0, 0, -1);
        Tensor y = new OneNodeModel("GridSample", 20).in(X).in(g).attr("align_corners", 1L).run1();
        assertArrayEquals(new long[] {1, 1, 1, 6}, y.shape());
        assertArrayEquals(new float[] {1, 2, 3, 4, 2.5f, 1.5f}, y.floats(), 1e-6f);
    }

    @Test
    void gridSamplePaddingModes() {
        // x = 2 lies beyond the right edge; y = -1 is the top row (pixel centres at +-0.5 without align_corners)
        Tensor g = grid(2, -0.5f);
        float zeros = new OneNodeModel("GridSample", 16).in(X).in(g).run1().floats()[0];
        float border = new OneNodeModel("GridSample", 16).in(X).in(g).attr("padding_mode", "border").run1()
                .floats()[0];
        float nearest = new OneNodeModel("GridSample", 20).in(X).in(grid(-0.5f, 0.5f)).attr("mode", "nearest")
                .run1().floats()[0];
        // x = 2 maps to pixel 2.5: no in-range neighbour, so zero; border clamps to column 1 (value 2)
        assertArrayEquals(new float[] {0, 2, 3}, new float[] {zeros, border, nearest}, 1e-6f);
    }

    @Test
    void gridSampleRejectsAMismatchedGrid() {
        Tensor g = Tensor.ofFloats(new float[] {0, 0, 0}, 1, 1, 1, 3);
        assertThrows(InvalidArgumentException.class, () -> new OneNodeModel("GridSample", 20).in(X).in(g).run1());
    }

    @Test
    void centerCropPadCropsOneAxisAndPadsAnother() {
        // 3 x 2 -> 1 x 4: keep the middle row, put the two columns in the middle of four
        Tensor x = Tensor.ofInts(new int[] {1, 2, 3, 4, 5, 6}, 3, 2);
        Tensor y = new OneNodeModel("CenterCropPad", 18).in(x).in(Tensor.ofLongs(new long[] {1, 4}, 2)).run1();
        assertArrayEquals(new long[] {1, 4}, y.shape());
        assertArrayEquals(new int[] {0, 3, 4, 0}, y.ints());
        Tensor z = new OneNodeModel("CenterCropPad", 18).in(x).in(Tensor.ofLongs(new long[] {1}, 1))
                .ints("axes", -1).run1();
        assertArrayEquals(new int[] {1, 3, 5}, z.ints());
    }
}
