package io.ortex.ep.cpu.ops.reduction;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.ortex.api.ElementType;
import io.ortex.api.HalfFloats;
import io.ortex.api.InvalidArgumentException;
import io.ortex.api.Tensor;
import io.ortex.ep.cpu.OneNodeModel;
import org.junit.jupiter.api.Test;

/** Focused cases of the reduction and arg-max/min kernels: opsets, axes, keepdims, types, empty sets. */
class ReduceOpsTest {

    static Tensor floats(long[] shape, float... v) {
        return Tensor.ofFloats(v, shape);
    }

    static Tensor iota(long... shape) {
        float[] v = new float[Tensor.checkedElementCount(shape)];
        for (int i = 0; i < v.length; i++) {
            v[i] = i;
        }
        return Tensor.ofFloats(v, shape);
    }

    static void assertClose(float[] expected, Tensor actual) {
        assertArrayEquals(expected, actual.floats(), 1e-5f);
    }

    private static final long[] S234 = {2, 3, 4};

    @Test
    void reduceSumLastAxisFromAttributeBeforeOpset13() {
        Tensor y = new OneNodeModel("ReduceSum", 11).in(iota(S234)).ints("axes", -1).run1();
        assertArrayEquals(new long[] {2, 3, 1}, y.shape());
        assertClose(new float[] {6, 22, 38, 54, 70, 86}, y);
    }

    @Test
    void reduceSumAxesFromInputFromOpset13() {
        Tensor y = new OneNodeModel("ReduceSum", 13).in(iota(S234)).constIn(Tensor.ofLongs(new long[] {1}, 1))
                .attr("keepdims", 0L).run1();
        assertArrayEquals(new long[] {2, 4}, y.shape());
        assertClose(new float[] {12, 15, 18, 21, 48, 51, 54, 57}, y);
        // the same with a runtime axes input
        Tensor z = new OneNodeModel("ReduceSum", 13).in(iota(S234)).in(Tensor.ofLongs(new long[] {-2}, 1))
                .attr("keepdims", 0L).run1();
        assertClose(y.floats(), z);
    }

    @Test
    void reduceMeanOverNonContiguousAxes() {
        Tensor y = new OneNodeModel("ReduceMean", 13).in(iota(S234)).ints("axes", 0, 2).run1();
        assertArrayEquals(new long[] {1, 3, 1}, y.shape());
        // channel j: mean of {4j..4j+3} and {12+4j..12+4j+3}
        assertClose(new float[] {7.5f, 11.5f, 15.5f}, y);
    }

    @Test
    void reduceMaxAndMinOverMiddleAxis() {
        Tensor x = floats(new long[] {2, 3, 2}, 1, -1, 5, 2, 3, 9, -4, 0, -2, 7, 8, -6);
        assertClose(new float[] {5, 9, 8, 7}, new OneNodeModel("ReduceMax", 18).in(x)
                .constIn(Tensor.ofLongs(new long[] {1}, 1)).attr("keepdims", 0L).run1());
        assertClose(new float[] {1, -1, -4, -6}, new OneNodeModel("ReduceMin", 11).in(x).ints("axes", 1)
                .attr("keepdims", 0L).run1());
    }

    @Test
    void defaultAxesReduceEverythingAndNoopKeepsTheInput() {
        Tensor x = floats(new long[] {2, 2}, 1, 2, 3, 4);
        Tensor all = new OneNodeModel("ReduceProd", 18).in(x).attr("keepdims", 0L).run1();
        assertEquals(0, all.rank());
        assertClose(new float[] {24}, all);
        Tensor noop = new OneNodeModel("ReduceSumSquare", 18).in(x).constIn(Tensor.ofLongs(new long[0], 0))
                .attr("noop_with_empty_axes", 1L).run1();
        assertArrayEquals(new long[] {2, 2}, noop.shape());
        assertClose(new float[] {1, 4, 9, 16}, noop);
    }

    @Test
    void otherReductionsAlongTheLastAxis() {
        Tensor x = floats(new long[] {2, 2}, 3, -4, 1, 2);
        assertClose(new float[] {7, 3}, new OneNodeModel("ReduceL1", 13).in(x).ints("axes", 1).run1());
        assertClose(new float[] {5, (float) Math.sqrt(5)},
                new OneNodeModel("ReduceL2", 13).in(x).ints("axes", 1).run1());
        assertClose(new float[] {(float) Math.log(4), (float) Math.log(3)},
                new OneNodeModel("ReduceLogSum", 13).in(floats(new long[] {2, 2}, 3, 1, 1, 2)).ints("axes", 1).run1());
        assertClose(new float[] {(float) Math.log(Math.exp(3) + Math.exp(-4)),
            (float) Math.log(Math.exp(1) + Math.exp(2))},
                new OneNodeModel("ReduceLogSumExp", 13).in(x).ints("axes", 1).run1());
        assertClose(new float[] {25, 5}, new OneNodeModel("ReduceSumSquare", 13).in(x).ints("axes", 1).run1());
    }

    @Test
    void emptyReductionsGiveTheIdentity() {
        Tensor x = Tensor.ofFloats(new float[0], 2, 0, 3);
        Tensor axes = Tensor.ofLongs(new long[] {1}, 1);
        assertClose(new float[] {0, 0, 0, 0, 0, 0}, new OneNodeModel("ReduceSum", 13).in(x).constIn(axes).run1());
        assertClose(new float[] {1, 1, 1, 1, 1, 1}, new OneNodeModel("ReduceProd", 18).in(x).constIn(axes).run1());
        float[] max = new OneNodeModel("ReduceMax", 18).in(x).constIn(axes).run1().floats();
        assertEquals(Float.NEGATIVE_INFINITY, max[0]);
        float[] lse = new OneNodeModel("ReduceLogSumExp", 18).in(x).constIn(axes).run1().floats();
        assertEquals(Float.NEGATIVE_INFINITY, lse[5]);
        Tensor keptZero = new OneNodeModel("ReduceSum", 13).in(x).constIn(Tensor.ofLongs(new long[] {2}, 1)).run1();
        assertArrayEquals(new long[] {2, 0, 1}, keptZero.shape());
    }

    @Test
    void integerAndBoolReductionsAreExact() {
        Tensor big = Tensor.ofLongs(new long[] {Long.MAX_VALUE - 10, 3, -7, 2}, 2, 2);
        Tensor s = new OneNodeModel("ReduceSum", 13).in(big).constIn(Tensor.ofLongs(new long[] {1}, 1)).run1();
        assertArrayEquals(new long[] {Long.MAX_VALUE - 7, -5}, s.longs());
        Tensor ints = Tensor.ofInts(new int[] {7, 2, 5, 4}, 2, 2);
        assertArrayEquals(new int[] {4, 4}, new OneNodeModel("ReduceMean", 13).in(ints).ints("axes", 1).run1().ints());
        Tensor intMax = new OneNodeModel("ReduceMax", 18).in(Tensor.ofInts(new int[0], 0, 2))
                .constIn(Tensor.ofLongs(new long[] {0}, 1)).run1();
        assertArrayEquals(new int[] {Integer.MIN_VALUE, Integer.MIN_VALUE}, intMax.ints());
        Tensor bools = Tensor.ofBooleans(new boolean[] {true, false, true, true}, 2, 2);
        assertArrayEquals(new boolean[] {false, true}, new OneNodeModel("ReduceMin", 20).in(bools)
                .constIn(Tensor.ofLongs(new long[] {1}, 1)).attr("keepdims", 0L).run1().booleans());
        assertArrayEquals(new boolean[] {true, true}, new OneNodeModel("ReduceMax", 20).in(bools)
                .constIn(Tensor.ofLongs(new long[] {1}, 1)).attr("keepdims", 0L).run1().booleans());
    }

    @Test
    void doubleAndHalfReductions() {
        Tensor d = Tensor.ofDoubles(new double[] {1e-3, 2, 3, 4}, 2, 2);
        assertArrayEquals(new double[] {2.001, 7}, new OneNodeModel("ReduceSum", 11).in(d).ints("axes", 1)
                .attr("keepdims", 0L).run1().doubles(), 1e-12);
        short[] h = {HalfFloats.floatToFloat16(1.5f), HalfFloats.floatToFloat16(2.5f)};
        Tensor y = new OneNodeModel("ReduceMean", 13).in(Tensor.of(ElementType.FLOAT16, new long[] {2}, h)).run1();
        assertEquals(ElementType.FLOAT16, y.type());
        assertEquals(2.0f, HalfFloats.float16ToFloat(y.shorts()[0]));
    }

    @Test
    void badAxesAreRejected() {
        assertThrows(InvalidArgumentException.class,
                () -> new OneNodeModel("ReduceSum", 11).in(iota(S234)).ints("axes", 3).run1());
        assertThrows(InvalidArgumentException.class,
                () -> new OneNodeModel("ReduceMean", 13).in(iota(S234)).ints("axes", 1, -2).run1());
    }

    @Test
    void argMaxAndArgMin() {
        Tensor x = floats(new long[] {2, 3}, 1, 5, 5, 7, 0, 7);
        assertArrayEquals(new long[] {1, 0}, new OneNodeModel("ArgMax", 13).in(x).attr("axis", -1L)
                .attr("keepdims", 0L).run1().longs());
        Tensor last = new OneNodeModel("ArgMax", 13).in(x).attr("axis", 1L).attr("select_last_index", 1L).run1();
        assertArrayEquals(new long[] {2, 1}, last.shape());
        assertArrayEquals(new long[] {2, 2}, last.longs());
        assertArrayEquals(new long[] {0, 1, 0}, new OneNodeModel("ArgMin", 11).in(x).run1().longs());
        Tensor ints = Tensor.ofLongs(new long[] {-1, 4, 4, 9}, 4);
        assertArrayEquals(new long[] {0}, new OneNodeModel("ArgMin", 13).in(ints).run1().longs());
    }
}
