package io.ortex.ep.cpu.ops.nn;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.ortex.api.Tensor;
import io.ortex.ep.cpu.OneNodeModel;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Focused cases of Attention and RotaryEmbedding, checked against values worked out by hand. */
class AttentionTest {

    static Tensor floats(long[] shape, float... v) {
        return Tensor.ofFloats(v, shape);
    }

    static void assertClose(float[] expected, Tensor actual) {
        assertArrayEquals(expected, actual.floats(), 1e-5f);
    }
    @Test
    void attentionSingleHeadWithDefaultScale() {
        Tensor q = floats(new long[] {1, 1, 1, 2}, 1, 0);
        Tensor k = floats(new long[] {1, 1, 2, 2}, 1, 0, 0, 0);
        Tensor v = floats(new long[] {1, 1, 2, 1}, 2, 4);
        Tensor y = new OneNodeModel("Attention", 23).in(q).in(k).in(v).run1();
        assertArrayEquals(new long[] {1, 1, 1, 1}, y.shape());
        double e = Math.exp(1 / Math.sqrt(2));
        assertEquals((float) ((2 * e + 4) / (e + 1)), y.floats()[0], 1e-5f);
    }

    @Test
    void attentionMasksCausalityAndCache() {
        Tensor q = floats(new long[] {1, 1, 2, 1}, 1, 1);
        Tensor k = floats(new long[] {1, 1, 2, 1}, 0, 0);
        Tensor v = floats(new long[] {1, 1, 2, 1}, 2, 4);
        // causal without cache: query 0 sees key 0 only, query 1 both
        assertClose(new float[] {2, 3},
                new OneNodeModel("Attention", 23).in(q).in(k).in(v).attr("is_causal", 1L).run1());
        // a bool mask that hides key 1 from every query
        Tensor mask = Tensor.ofBooleans(new boolean[] {true, false}, 1, 2);
        assertClose(new float[] {2, 2}, new OneNodeModel("Attention", 23).in(q).in(k).in(v).in(mask).run1());
        // one past entry: a single query sees past key and new key, and present holds both
        Tensor q1 = floats(new long[] {1, 1, 1, 1}, 1);
        Tensor k1 = floats(new long[] {1, 1, 1, 1}, 0);
        Tensor v1 = floats(new long[] {1, 1, 1, 1}, 4);
        List<Tensor> out = new OneNodeModel("Attention", 23).in(q1).in(k1).in(v1).none()
                .in(floats(new long[] {1, 1, 1, 1}, 0)).in(floats(new long[] {1, 1, 1, 1}, 2))
                .attr("is_causal", 1L).outputs(3).run();
        assertClose(new float[] {3}, out.get(0));
        assertArrayEquals(new long[] {1, 1, 2, 1}, out.get(2).shape());
        assertClose(new float[] {2, 4}, out.get(2));
    }

    @Test
    void attentionPackedHeadsShareKeysInGroups() {
        Tensor q = floats(new long[] {1, 1, 4}, 1, 0, 0, 1);
        Tensor k = floats(new long[] {1, 2, 2}, 1, 0, 0, 1);
        Tensor v = floats(new long[] {1, 2, 1}, 10, 20);
        Tensor y = new OneNodeModel("Attention", 23).in(q).in(k).in(v).attr("q_num_heads", 2L).attr("kv_num_heads", 1L)
                .attr("scale", 100f).run1();
        // head 0 matches key 0, head 1 key 1; the large scale makes the softmax one-hot
        assertArrayEquals(new long[] {1, 1, 2}, y.shape());
        assertClose(new float[] {10, 20}, y);
    }

    @Test
    void rotaryEmbeddingHalvesAndInterleaved() {
        Tensor x = floats(new long[] {1, 1, 1, 4}, 1, 2, 3, 4);
        Tensor cos = floats(new long[] {1, 1, 2}, 0, 1);
        Tensor sin = floats(new long[] {1, 1, 2}, 1, 0);
        // pairs (x0, x2) rotated by 90 degrees, (x1, x3) unchanged
        assertClose(new float[] {-3, 2, 1, 4}, new OneNodeModel("RotaryEmbedding", 23).in(x).in(cos).in(sin).run1());
        // pairs (x0, x1) rotated, (x2, x3) unchanged
        assertClose(new float[] {-2, 1, 3, 4}, new OneNodeModel("RotaryEmbedding", 23).in(x).in(cos).in(sin)
                .attr("interleaved", 1L).run1());
        // position ids pick the cache row; a rotary dimension of 2 leaves the rest alone
        Tensor cache = floats(new long[] {2, 1}, 1, 0);
        Tensor sinCache = floats(new long[] {2, 1}, 0, 1);
        Tensor packed = floats(new long[] {1, 1, 4}, 1, 2, 3, 4);
        assertClose(new float[] {-2, 1, 3, 4}, new OneNodeModel("RotaryEmbedding", 23).in(packed).in(cache).in(sinCache)
                .in(Tensor.ofLongs(new long[] {1}, 1, 1)).attr("num_heads", 1L).attr("rotary_embedding_dim", 2L)
                .run1());
    }
}
