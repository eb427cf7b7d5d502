package io.ortex.ep.cpu.ops.math;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.ortex.api.InvalidArgumentException;
import io.ortex.api.Tensor;
import io.ortex.ep.cpu.OneNodeModel;
import org.junit.jupiter.api.Test;

/** Focused cases of CumProd and Det, worked out by hand. */
class TensorMathOpsTest {
    private static final Tensor M = Tensor.ofDoubles(new double[] {1, 2, 3, 4, 5, 6}, 2, 3);

    @Test
    void cumProdAlongEitherAxisExclusiveAndReversed() {
        Tensor rows = new OneNodeModel("CumProd", 26).in(M).in(Tensor.ofInts(new int[] {1})).run1();
        assertArrayEquals(new double[] {1, 2, 6, 4, 20, 120}, rows.doubles());
        Tensor cols = new OneNodeModel("CumProd", 26).in(M).in(Tensor.ofLongs(new long[] {-2})).run1();
        assertArrayEquals(new double[] {1, 2, 3, 4, 10, 18}, cols.doubles());
        Tensor ints = Tensor.ofInts(new int[] {2, 3, 4}, 3);
        Tensor rev = new OneNodeModel("CumProd", 26).in(ints).in(Tensor.ofInts(new int[] {0})).attr("exclusive", 1L)
                .attr("reverse", 1L).run1();
        assertArrayEquals(new int[] {12, 4, 1}, rev.ints());
    }

    @Test
    void detOfABatchOfMatrices() {
        // [[0, 1], [1, 0]] needs a pivot swap: -1; [[2, 1], [4, 3]]: 2
        Tensor x = Tensor.ofFloats(new float[] {0, 1, 1, 0, 2, 1, 4, 3}, 2, 2, 2);
        Tensor d = new OneNodeModel("Det", 22).in(x).run1();
        assertArrayEquals(new long[] {2}, d.shape());
        assertArrayEquals(new float[] {-1, 2}, d.floats(), 1e-6f);
        assertThrows(InvalidArgumentException.class, () -> new OneNodeModel("Det", 22).in(M).run1());
    }
}
