package io.ortex.ep.cpu.ops.nn;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.ortex.api.InvalidArgumentException;
import io.ortex.api.Tensor;
import io.ortex.ep.cpu.OneNodeModel;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Focused cases of NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss, worked out by hand. */
class LossOpsTest {
    // (N=2, C=3) log-probabilities and their targets
    private static final Tensor X = Tensor.ofFloats(new float[] {-1, -2, -3, -4, -5, -6}, 2, 3);
    private static final Tensor T = Tensor.ofLongs(new long[] {2, 0}, 2);

    @Test
    void nllReductions() {
        Tensor none = new OneNodeModel("NegativeLogLikelihoodLoss", 13).in(X).in(T).attr("reduction", "none").run1();
        assertArrayEquals(new long[] {2}, none.shape());
        assertArrayEquals(new float[] {3, 4}, none.floats(), 1e-6f);
        Tensor sum = new OneNodeModel("NegativeLogLikelihoodLoss", 13).in(X).in(T).attr("reduction", "sum").run1();
        assertEquals(0, sum.rank());
        assertEquals(7f, sum.floats()[0], 1e-6f);
        Tensor mean = new OneNodeModel("NegativeLogLikelihoodLoss", 22).in(X).in(T).run1();
        assertEquals(3.5f, mean.floats()[0], 1e-6f);
    }

    @Test
    void nllWeightedMeanDividesByTheWeightsAndSkipsIgnoredTargets() {
        Tensor w = Tensor.ofFloats(new float[] {1, 0.5f, 2}, 3);
        // 2*3 + 1*4 over 2 + 1
        Tensor mean = new OneNodeModel("NegativeLogLikelihoodLoss", 13).in(X).in(T).in(w).run1();
        assertEquals(10f / 3, mean.floats()[0], 1e-6f);
        // target -1 is ignored: only the first position remains
        Tensor t = Tensor.ofLongs(new long[] {2, -1}, 2);
        Tensor ignored = new OneNodeModel("NegativeLogLikelihoodLoss", 13).in(X).in(t).in(w)
                .attr("ignore_index", -1L).run1();
        assertEquals(3f, ignored.floats()[0], 1e-6f);
    }

    @Test
    void nllSpatialDimensions() {
        // N=1, C=2, d1=2: class axis is 1
        Tensor x = Tensor.ofFloats(new float[] {-1, -2, -3, -4}, 1, 2, 2);
        Tensor t = Tensor.ofLongs(new long[] {1, 0}, 1, 2);
        Tensor none = new OneNodeModel("NegativeLogLikelihoodLoss", 13).in(x).in(t).attr("reduction", "none").run1();
        assertArrayEquals(new long[] {1, 2}, none.shape());
        assertArrayEquals(new float[] {3, 2}, none.floats(), 1e-6f);
    }

    @Test
    void nllRejectsTargetsOutOfRange() {
        Tensor t = Tensor.ofLongs(new long[] {3, 0}, 2);
        assertThrows(InvalidArgumentException.class,
                () -> new OneNodeModel("NegativeLogLikelihoodLoss", 13).in(X).in(t).run1());
    }

    @Test
    void softmaxCrossEntropyReturnsTheLogProbabilities() {
        Tensor scores = Tensor.ofDoubles(new double[] {0, 0, Math.log(2), 0}, 2, 2);
        Tensor labels = Tensor.ofInts(new int[] {0, 1}, 2);
        List<Tensor> out = new OneNodeModel("SoftmaxCrossEntropyLoss", 13).in(scores).in(labels)
                .attr("reduction", "none").outputs(2).run();
        double l2 = Math.log(2);
        double l3 = Math.log(3);
        assertArrayEquals(new double[] {l2, l3}, out.get(0).doubles(), 1e-12);
        assertArrayEquals(new double[] {-l2, -l2, l2 - l3, -l3}, out.get(1).doubles(), 1e-12);
        Tensor mean = new OneNodeModel("SoftmaxCrossEntropyLoss", 12).in(scores).in(labels).run1();
        assertEquals((l2 + l3) / 2, mean.doubles()[0], 1e-12);
    }
}
