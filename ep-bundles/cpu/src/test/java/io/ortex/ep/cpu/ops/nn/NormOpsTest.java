package io.ortex.ep.cpu.ops.nn;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.ortex.api.ElementType;
import io.ortex.api.HalfFloats;
import io.ortex.api.InvalidArgumentException;
import io.ortex.api.NotImplementedException;
import io.ortex.api.Tensor;
import io.ortex.ep.cpu.OneNodeModel;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Focused cases of the normalization kernels, checked against values worked out by hand. */
class NormOpsTest {

    private static Tensor floats(long[] shape, float... v) {
        return Tensor.ofFloats(v, shape);
    }

    private static Tensor vec(float... v) {
        return Tensor.ofFloats(v, v.length);
    }

    /** Normalizes a list of numbers with the population variance. */
    private static float[] normalize(double eps, float... v) {
        double mean = 0;
        for (float f : v) {
            mean += f;
        }
        mean /= v.length;
        double var = 0;
        for (float f : v) {
            var += (f - mean) * (f - mean);
        }
        var /= v.length;
        float[] out = new float[v.length];
        for (int i = 0; i < v.length; i++) {
            out[i] = (float) ((v[i] - mean) / Math.sqrt(var + eps));
        }
        return out;
    }

    @Test
    void batchNormFoldsTheParametersPerChannel() {
        Tensor x = floats(new long[] {1, 2, 2}, 1, 2, 3, 4);
        Tensor y = new OneNodeModel("BatchNormalization", 15).in(x).constIn(vec(2, 1)).constIn(vec(1, 0))
                .constIn(vec(1, 3)).constIn(vec(4, 1)).attr("epsilon", 0f).run1();
        // channel 0: (x - 1) / 2 * 2 + 1; channel 1: (x - 3) / 1 * 1 + 0
        assertArrayEquals(new float[] {1, 2, 0, 1}, y.floats(), 1e-6f);
        // the same parameters fed at run time, opset 9
        Tensor z = new OneNodeModel("BatchNormalization", 9).in(x).in(vec(2, 1)).in(vec(1, 0)).in(vec(1, 3))
                .in(vec(4, 1)).attr("epsilon", 0f).run1();
        assertArrayEquals(y.floats(), z.floats(), 1e-6f);
    }

    @Test
    void batchNormOpset7PerPositionParameters() {
        Tensor x = floats(new long[] {2, 1, 2}, 1, 2, 3, 4);
        Tensor y = new OneNodeModel("BatchNormalization", 7).in(x).in(floats(new long[] {1, 2}, 1, 2))
                .in(floats(new long[] {1, 2}, 0, 1)).in(floats(new long[] {1, 2}, 0, 0))
                .in(floats(new long[] {1, 2}, 1, 1)).attr("epsilon", 0f).attr("spatial", 0L).run1();
        assertArrayEquals(new float[] {1, 5, 3, 9}, y.floats(), 1e-6f);
    }

    @Test
    void batchNormTrainingIsRefused() {
        Tensor x = floats(new long[] {1, 1, 1}, 1);
        assertThrows(NotImplementedException.class, () -> new OneNodeModel("BatchNormalization", 15).in(x).in(vec(1))
                .in(vec(0)).in(vec(0)).in(vec(1)).attr("training_mode", 1L).outputs(3).run());
    }

    @Test
    void layerNormWithStatisticsOutputs() {
        Tensor x = floats(new long[] {2, 3}, 1, 2, 3, 2, 2, 8);
        List<Tensor> out = new OneNodeModel("LayerNormalization", 17).in(x).in(vec(1, 2, 3)).in(vec(0, 0, 1))
                .attr("epsilon", 1e-5f).outputs(3).run();
        float[] r0 = normalize(1e-5, 1, 2, 3);
        float[] r1 = normalize(1e-5, 2, 2, 8);
        assertArrayEquals(new float[] {r0[0], 2 * r0[1], 3 * r0[2] + 1, r1[0], 2 * r1[1], 3 * r1[2] + 1},
                out.get(0).floats(), 1e-5f);
        assertArrayEquals(new long[] {2, 1}, out.get(1).shape());
        assertArrayEquals(new float[] {2, 4}, out.get(1).floats(), 1e-6f);
        assertEquals((float) (1 / Math.sqrt(8 + 1e-5)), out.get(2).floats()[1], 1e-6f);
    }

    @Test
    void layerNormOverSeveralAxesWithBroadcastScale() {
        Tensor x = floats(new long[] {1, 2, 2}, 1, 2, 3, 4);
        // axis -2 normalizes both trailing axes; scale (2, 1) broadcasts along the last one
        float[] y = new OneNodeModel("LayerNormalization", 17).in(x).in(floats(new long[] {2, 1}, 1, 2))
                .attr("axis", -2L).attr("epsilon", 0f).run1().floats();
        float[] n = normalize(0, 1, 2, 3, 4);
        assertArrayEquals(new float[] {n[0], n[1], 2 * n[2], 2 * n[3]}, y, 1e-5f);
    }

    @Test
    void layerNormInDoubleAndFloat16() {
        Tensor d = Tensor.ofDoubles(new double[] {1, 3}, 1, 2);
        double[] y = new OneNodeModel("LayerNormalization", 17).in(d).in(Tensor.ofDoubles(new double[] {1, 1}, 2))
                .attr("epsilon", 0f).run1().doubles();
        assertArrayEquals(new double[] {-1, 1}, y, 1e-12);
        short[] h = {HalfFloats.floatToFloat16(1), HalfFloats.floatToFloat16(3)};
        short[] one = {HalfFloats.floatToFloat16(1), HalfFloats.floatToFloat16(1)};
        Tensor hy = new OneNodeModel("LayerNormalization", 17).in(Tensor.of(ElementType.FLOAT16, new long[] {2}, h))
                .in(Tensor.of(ElementType.FLOAT16, new long[] {2}, one)).attr("epsilon", 0f).run1();
        assertEquals(ElementType.FLOAT16, hy.type());
        assertEquals(1f, HalfFloats.float16ToFloat(hy.shorts()[1]), 1e-3f);
    }

    @Test
    void rmsNormDividesByTheRootMeanSquare() {
        Tensor x = floats(new long[] {2, 2}, 3, 4, 1, 1);
        float[] y = new OneNodeModel("RMSNormalization", 23).in(x).in(vec(1, 2)).attr("epsilon", 0f).run1().floats();
        float r = (float) Math.sqrt(12.5);
        assertArrayEquals(new float[] {3 / r, 8 / r, 1, 2}, y, 1e-5f);
    }

    @Test
    void instanceNormPerSampleAndChannel() {
        Tensor x = floats(new long[] {1, 2, 3}, 1, 2, 3, 10, 20, 60);
        float[] y = new OneNodeModel("InstanceNormalization", 6).in(x).in(vec(1, 2)).in(vec(0, 5)).run1().floats();
        float[] a = normalize(1e-5, 1, 2, 3);
        float[] b = normalize(1e-5, 10, 20, 60);
        assertArrayEquals(new float[] {a[0], a[1], a[2], 2 * b[0] + 5, 2 * b[1] + 5, 2 * b[2] + 5}, y, 1e-5f);
    }

    @Test
    void groupNormScaleIsPerGroupInOpset18AndPerChannelInOpset21() {
        Tensor x = floats(new long[] {1, 4, 1}, 1, 3, 5, 9);
        float[] g0 = normalize(1e-5, 1, 3);
        float[] g1 = normalize(1e-5, 5, 9);
        float[] v18 = new OneNodeModel("GroupNormalization", 18).in(x).in(vec(2, 3)).in(vec(0, 1))
                .attr("num_groups", 2L).run1().floats();
        assertArrayEquals(new float[] {2 * g0[0], 2 * g0[1], 3 * g1[0] + 1, 3 * g1[1] + 1}, v18, 1e-5f);
        float[] v21 = new OneNodeModel("GroupNormalization", 21).in(x).in(vec(1, 2, 3, 4)).in(vec(0, 0, 0, 1))
                .attr("num_groups", 2L).run1().floats();
        assertArrayEquals(new float[] {g0[0], 2 * g0[1], 3 * g1[0], 4 * g1[1] + 1}, v21, 1e-5f);
        assertThrows(InvalidArgumentException.class, () -> new OneNodeModel("GroupNormalization", 21).in(x)
                .in(vec(1, 2, 3, 4)).in(vec(0, 0, 0, 1)).attr("num_groups", 3L).run1());
    }

    @Test
    void lrnSumsSquaresOverNeighbouringChannels() {
        Tensor x = floats(new long[] {1, 3, 1, 1}, 1, 2, 3);
        float[] y = new OneNodeModel("LRN", 13).in(x).attr("size", 3L).attr("alpha", 3f).attr("beta", 1f)
                .attr("bias", 1f).run1().floats();
        // alpha / size = 1: channel 0 sees 1+4, channel 1 sees 1+4+9, channel 2 sees 4+9
        assertArrayEquals(new float[] {1 / 6f, 2 / 15f, 3 / 14f}, y, 1e-6f);
    }

    @Test
    void meanVarianceNormalizationOverDefaultAxes() {
        Tensor x = floats(new long[] {2, 2, 1, 1}, 1, 10, 3, 30);
        float[] y = new OneNodeModel("MeanVarianceNormalization", 13).in(x).run1().floats();
        // channel 0 holds {1, 3}, channel 1 {10, 30}: each becomes {-1, 1}
        assertArrayEquals(new float[] {-1, -1, 1, 1}, y, 1e-6f);
    }
}
