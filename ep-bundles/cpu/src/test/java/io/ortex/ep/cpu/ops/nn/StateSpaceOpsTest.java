package io.ortex.ep.cpu.ops.nn;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.ortex.api.InvalidArgumentException;
import io.ortex.api.Tensor;
import io.ortex.ep.cpu.OneNodeModel;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Focused cases of CausalConvWithState and LinearAttention, worked out by hand. */
class StateSpaceOpsTest {
    @Test
    void causalConvUsesThePastStateAndReturnsTheLastColumns() {
        // B=1, C=1, T=3, K=3: weights (1, 10, 100) over [past..., input...]
        Tensor x = Tensor.ofFloats(new float[] {1, 2, 3}, 1, 1, 3);
        Tensor w = Tensor.ofFloats(new float[] {1, 10, 100}, 1, 1, 3);
        Tensor past = Tensor.ofFloats(new float[] {7, 8}, 1, 1, 2);
        List<Tensor> out = new OneNodeModel("CausalConvWithState", 27).in(x).in(w).none().in(past).outputs(2).run();
        // padded [7, 8, 1, 2, 3]
        assertArrayEquals(new float[] {7 + 80 + 100, 8 + 10 + 200, 1 + 20 + 300}, out.get(0).floats(), 1e-4f);
        assertArrayEquals(new float[] {2, 3}, out.get(1).floats());
        List<Tensor> fresh = new OneNodeModel("CausalConvWithState", 27).in(x).in(w)
                .in(Tensor.ofFloats(new float[] {-1000}, 1)).attr("activation", "silu").outputs(2).run();
        // (0, 0, 1) -> 100 - 1000 = -900: SiLU is about 0; then -1000 + 10 + 200 = -790; -1000 + 1 + 20 + 300 = -679
        assertArrayEquals(new float[] {0, 0, 0}, fresh.get(0).floats(), 1e-6f);
    }

    @Test
    void causalConvRejectsAWrongState() {
        Tensor x = Tensor.ofFloats(new float[] {1, 2}, 1, 1, 2);
        Tensor w = Tensor.ofFloats(new float[] {1, 1}, 1, 1, 2);
        assertThrows(InvalidArgumentException.class, () -> new OneNodeModel("CausalConvWithState", 27).in(x).in(w)
                .none().in(Tensor.ofFloats(new float[2], 1, 1, 2)).outputs(2).run());
    }

    @Test
    void linearAttentionAccumulatesOuterProducts() {
        // one head, dk = dv = 1, scale 1: S_t = S_{t-1} + k v, y = q S
        Tensor q = Tensor.ofFloats(new float[] {1, 2}, 1, 2, 1);
        Tensor k = Tensor.ofFloats(new float[] {3, 4}, 1, 2, 1);
        Tensor v = Tensor.ofFloats(new float[] {5, 6}, 1, 2, 1);
        List<Tensor> out = new OneNodeModel("LinearAttention", 27).in(q).in(k).in(v).attr("q_num_heads", 1L)
                .attr("kv_num_heads", 1L).attr("update_rule", "linear").outputs(2).run();
        assertArrayEquals(new float[] {15, 2 * (15 + 24)}, out.get(0).floats(), 1e-4f);
        assertArrayEquals(new long[] {1, 1, 1, 1}, out.get(1).shape());
        assertArrayEquals(new float[] {39}, out.get(1).floats(), 1e-4f);
    }

    @Test
    void gatedDeltaRuleDecaysThenCorrects() {
        // dk = dv = 1, past S = 2, decay ln(0.5) -> S = 1; delta: beta (v - S k) = 0.5 (4 - 1*2) = 1; S = 1 + 2*1 = 3
        Tensor q = Tensor.ofFloats(new float[] {1}, 1, 1, 1);
        Tensor k = Tensor.ofFloats(new float[] {2}, 1, 1, 1);
        Tensor v = Tensor.ofFloats(new float[] {4}, 1, 1, 1);
        Tensor past = Tensor.ofFloats(new float[] {2}, 1, 1, 1, 1);
        Tensor decay = Tensor.ofFloats(new float[] {(float) Math.log(0.5)}, 1, 1, 1);
        Tensor beta = Tensor.ofFloats(new float[] {0.5f}, 1, 1, 1);
        List<Tensor> out = new OneNodeModel("LinearAttention", 27).in(q).in(k).in(v).in(past).in(decay).in(beta)
                .attr("q_num_heads", 1L).attr("kv_num_heads", 1L).attr("scale", 2f).outputs(2).run();
        assertArrayEquals(new float[] {6}, out.get(0).floats(), 1e-5f);
        assertArrayEquals(new float[] {3}, out.get(1).floats(), 1e-5f);
    }
}
