package io.ortex.ep.cpu.ops.math;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.ortex.api.Tensor;
import io.ortex.ep.cpu.OneNodeModel;
import org.junit.jupiter.api.Test;

/** Focused cases of Softmax, LogSoftmax and Hardmax: the opset 13 change, zero-size and scalar inputs. */
class SoftmaxTest {

    static Tensor floats(long[] shape, float... v) {
        return Tensor.ofFloats(v, shape);
    }

    static void assertClose(float[] expected, Tensor actual) {
        assertArrayEquals(expected, actual.floats(), 1e-5f);
    }

    @Test
    void softmaxBeforeOpset13FlattensFromTheAxis() {
        Tensor x = floats(new long[] {1, 2, 2}, 0, 0, 0, (float) Math.log(5));
        // opset 11, axis 1: one row of 4 elements
        float[] legacy = new OneNodeModel("Softmax", 11).in(x).run1().floats();
        assertArrayEquals(new float[] {0.125f, 0.125f, 0.125f, 0.625f}, legacy, 1e-6f);
        // opset 13, axis -1: two rows of 2 elements
        float[] modern = new OneNodeModel("Softmax", 13).in(x).run1().floats();
        assertArrayEquals(new float[] {0.5f, 0.5f, 1 / 6f, 5 / 6f}, modern, 1e-6f);
        // opset 13 along a middle axis
        float[] axis1 = new OneNodeModel("Softmax", 13).in(x).attr("axis", 1L).run1().floats();
        assertArrayEquals(new float[] {0.5f, 1 / 6f, 0.5f, 5 / 6f}, axis1, 1e-6f);
    }

    @Test
    void logSoftmaxAndHardmax() {
        Tensor x = floats(new long[] {2, 2}, 1000, 1000, 2, 3);
        float[] ls = new OneNodeModel("LogSoftmax", 13).in(x).run1().floats();
        assertArrayEquals(new float[] {(float) -Math.log(2), (float) -Math.log(2),
            (float) (-1 - Math.log(1 + Math.exp(-1))), (float) -Math.log(1 + Math.exp(-1))}, ls, 1e-5f);
        assertArrayEquals(new float[] {1, 0, 0, 1}, new OneNodeModel("Hardmax", 13).in(x).run1().floats());
        assertArrayEquals(new float[] {1, 0, 0, 0},
                new OneNodeModel("Hardmax", 11).in(x).attr("axis", 0L).run1().floats());
        double[] d = new OneNodeModel("Softmax", 13).in(Tensor.ofDoubles(new double[] {0, Math.log(3)}, 2)).run1()
                .doubles();
        assertArrayEquals(new double[] {0.25, 0.75}, d, 1e-12);
    }

    @Test
    void softmaxOfZeroSizeAndScalar() {
        assertEquals(0, new OneNodeModel("Softmax", 13).in(Tensor.ofFloats(new float[0], 3, 0)).run1().size());
        assertClose(new float[] {1}, new OneNodeModel("Softmax", 13).in(Tensor.ofFloats(new float[] {4}, 1)).run1());
    }
}
