package io.ortex.ep.cpu.ops.tensor;

import static io.ortex.ep.cpu.TensorChecks.assertClose;
import static io.ortex.testing.Attributes.attr;
import static io.ortex.testing.Attributes.floats;
import static io.ortex.testing.Attributes.ints;
import static io.ortex.testing.OneNodeModel.run1;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;

import io.ortex.api.Tensor;
import io.ortex.onnx.proto.Onnx;
import org.junit.jupiter.api.Test;

/** Unit tests of Resize and Upsample across their opsets. */
class ResizeTest {

    @Test
    void float32NearestMatchesTheGeneralPathOnEveryAxisPattern() {
        // the float32 fast path (last two axes) against the float64 path, which resizes axis by axis
        float[] v = new float[2 * 3 * 5 * 7];
        for (int i = 0; i < v.length; i++) {
            v[i] = (float) Math.sin(i);
        }
        Tensor x = Tensor.ofFloats(v, 2, 3, 5, 7);
        double[] d = new double[v.length];
        for (int i = 0; i < v.length; i++) {
            d[i] = v[i];
        }
        Tensor xd = Tensor.ofDoubles(d, 2, 3, 5, 7);
        float[][] scales = {{1, 1, 2, 2}, {1, 1, 4, 3}, {1, 1, 0.5f, 0.6f}, {1, 1, 1, 3}, {1, 1, 2, 1}, {1, 2, 2, 2},
            {2, 1, 1, 1}};
        String[][] modes = {{"asymmetric", "floor"}, {"half_pixel", "round_prefer_floor"},
            {"align_corners", "round_prefer_ceil"}, {"tf_half_pixel_for_nn", "ceil"}};
        for (float[] sc : scales) {
            for (String[] m : modes) {
                Tensor st = Tensor.ofFloats(sc, 4);
                Onnx.AttributeProto[] attrs = {attr("coordinate_transformation_mode", m[0]),
                    attr("nearest_mode", m[1])};
                Tensor want = run1("Resize", 13, new Tensor[] {xd, null, st}, attrs);
                Tensor got = run1("Resize", 13, new Tensor[] {x, null, st}, attrs);
                assertClose(want, got, 0);
            }
        }
    }

    @Test
    void resizeFollowsTheOpsetRules() {
        Tensor x = Tensor.ofFloats(new float[] {0, 4}, 1, 2);
        Tensor scales = Tensor.ofFloats(new float[] {1, 2}, 2);
        // opset 10: asymmetric coordinates o / 2 = 0, 0.5, 1, 1.5
        assertArrayEquals(new float[] {0, 2, 4, 4}, run1("Resize", 10, new Tensor[] {x, scales},
                attr("mode", "linear")).floats());
        // opset 11: half_pixel (o + 0.5) / 2 - 0.5 = -0.25, 0.25, 0.75, 1.25, clamped to the edges
        Tensor roi = Tensor.ofFloats(new float[0], 0);
        assertArrayEquals(new float[] {0, 1, 3, 4}, run1("Resize", 11, new Tensor[] {x, roi, scales},
                attr("mode", "linear")).floats());
        // opset 13, sizes only: x = (o + 0.5) * 0.6 - 0.5 = -0.2, 0.4, 1, 1.6, 2.2
        Tensor sizes = Tensor.ofLongs(new long[] {1, 5}, 2);
        Tensor x3 = Tensor.ofFloats(new float[] {1, 2, 3}, 1, 3);
        assertArrayEquals(new float[] {1, 1, 2, 3, 3}, run1("Resize", 13, new Tensor[] {x3, null, null, sizes})
                .floats());
        // the nearest modes differ at exact halves: asymmetric x = o / 2 with sizes 6
        Tensor six = Tensor.ofLongs(new long[] {1, 6}, 2);
        assertArrayEquals(new float[] {1, 2, 2, 3, 3, 3}, run1("Resize", 13, new Tensor[] {x3, null, null, six},
                attr("coordinate_transformation_mode", "asymmetric"),
                attr("nearest_mode", "round_prefer_ceil")).floats());
        assertArrayEquals(new float[] {1, 1, 2, 2, 3, 3}, run1("Resize", 13, new Tensor[] {x3, null, null, six},
                attr("coordinate_transformation_mode", "asymmetric")).floats());
    }

    @Test
    void resizeLinearWithAxesAndCropExtrapolation() {
        Tensor x = Tensor.ofFloats(new float[] {0, 10, 20, 30}, 1, 2, 2);
        Tensor y = run1("Resize", 18, new Tensor[] {x, null, Tensor.ofFloats(new float[] {2}, 1)},
                attr("mode", "linear"), ints("axes", -1), attr("coordinate_transformation_mode",
                        "align_corners"));
        assertArrayEquals(new long[] {1, 2, 4}, y.shape());
        assertClose(Tensor.ofFloats(new float[] {0, 10 / 3f, 20 / 3f, 10, 20, 70 / 3f, 80 / 3f, 30}, 1, 2, 4), y,
                1e-6);
        Tensor roi = Tensor.ofFloats(new float[] {0, 1.5f}, 2);
        Tensor c = run1("Resize", 18, new Tensor[] {x, roi, null, Tensor.ofLongs(new long[] {4}, 1)},
                attr("mode", "linear"), ints("axes", 2), attr("coordinate_transformation_mode",
                        "tf_crop_and_resize"), attr("extrapolation_value", -1f));
        // x_original = o * 1.5 / 3 = 0, 0.5, 1, 1.5 (outside)
        assertArrayEquals(new float[] {0, 5, 10, -1, 20, 25, 30, -1}, c.floats());
    }

    @Test
    void upsampleReadsScalesFromTheAttributeBeforeOpset9() {
        Tensor x = Tensor.ofFloats(new float[] {1, 2, 3, 4}, 1, 1, 2, 2);
        float[] expected = {1, 1, 2, 2, 1, 1, 2, 2, 3, 3, 4, 4, 3, 3, 4, 4};
        assertArrayEquals(expected, run1("Upsample", 7, new Tensor[] {x}, floats("scales", 1, 1, 2, 2))
                .floats());
        assertArrayEquals(expected, run1("Upsample", 9, new Tensor[] {x, Tensor.ofFloats(new float[] {1, 1, 2, 2},
            4)}).floats());
        Tensor lin = run1("Upsample", 9, new Tensor[] {Tensor.ofFloats(new float[] {0, 4}, 1, 2),
            Tensor.ofFloats(new float[] {1, 2}, 2)}, attr("mode", "linear"));
        assertArrayEquals(new float[] {0, 2, 4, 4}, lin.floats());
    }
}
