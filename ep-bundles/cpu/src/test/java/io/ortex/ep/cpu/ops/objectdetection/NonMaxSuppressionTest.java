package io.ortex.ep.cpu.ops.objectdetection;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

import io.ortex.api.Tensor;
import io.ortex.ep.cpu.OneNodeModel;
import org.junit.jupiter.api.Test;

/** Unit tests of NonMaxSuppression. */
class NonMaxSuppressionTest {

    @Test
    void nonMaxSuppressionKeepsTheBestBoxesThatDoNotOverlap() {
        // boxes 0 and 1 overlap (IoU 0.81); box 2 is apart; box 3 scores below the threshold
        Tensor boxes = Tensor.ofFloats(new float[] {0, 0, 1, 1, 0, 0.1f, 1, 1, 2, 2, 3, 3, 5, 5, 6, 6}, 1, 4, 4);
        Tensor scores = Tensor.ofFloats(new float[] {0.8f, 0.9f, 0.7f, 0.1f}, 1, 1, 4);
        Tensor y = new OneNodeModel("NonMaxSuppression", 11).in(boxes).in(scores)
                .in(Tensor.ofLongs(new long[] {3}, 1)).in(Tensor.ofFloats(new float[] {0.5f}, 1))
                .in(Tensor.ofFloats(new float[] {0.2f}, 1)).run1();
        assertArrayEquals(new long[] {2, 3}, y.shape());
        assertArrayEquals(new long[] {0, 0, 1, 0, 0, 2}, y.longs());
        Tensor none = new OneNodeModel("NonMaxSuppression", 11).in(boxes).in(scores).run1();
        assertArrayEquals(new long[] {0, 3}, none.shape());
    }
}
