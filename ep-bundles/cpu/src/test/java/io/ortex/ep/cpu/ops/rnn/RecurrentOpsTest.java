package io.ortex.ep.cpu.ops.rnn;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.ortex.api.InvalidArgumentException;
import io.ortex.api.NotImplementedException;
import io.ortex.api.Tensor;
import io.ortex.ep.cpu.KernelHarness;
import io.ortex.onnx.TensorCodec;
import io.ortex.onnx.proto.Onnx;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * LSTM, GRU and RNN: single-unit cases worked out by hand, and properties that tie directions, layouts, sequence
 * lengths and precisions together on random weights.
 */
class RecurrentOpsTest {

    /** A one-node model with inputs fed at run time or as initializers, and string/float attributes. */
    private static final class Rnn {
        private final int opset;
        private final Onnx.NodeProto.Builder node = Onnx.NodeProto.newBuilder();
        private final Map<String, Tensor> feeds = new LinkedHashMap<>();
        private final List<Onnx.TensorProto> inits = new ArrayList<>();

        Rnn(String op, int opset) {
            this.opset = opset;
            node.setOpType(op).setName(op + "_node");
        }

        Rnn in(Tensor t) {
            String name = "in" + node.getInputCount();
            node.addInput(name);
            feeds.put(name, t);
            return this;
        }

        Rnn constIn(Tensor t) {
            String name = "in" + node.getInputCount();
            node.addInput(name);
            inits.add(TensorCodec.toProto(t, name));
            return this;
        }

        Rnn none() {
            node.addInput("");
            return this;
        }

        Rnn attr(String name, long v) {
            node.addAttribute(Onnx.AttributeProto.newBuilder().setName(name)
                    .setType(Onnx.AttributeProto.AttributeType.INT).setI(v));
            return this;
        }

        Rnn attr(String name, float v) {
            node.addAttribute(Onnx.AttributeProto.newBuilder().setName(name)
                    .setType(Onnx.AttributeProto.AttributeType.FLOAT).setF(v));
            return this;
        }

        Rnn attr(String name, String v) {
            node.addAttribute(Onnx.AttributeProto.newBuilder().setName(name)
                    .setType(Onnx.AttributeProto.AttributeType.STRING)
                    .setS(com.google.protobuf.ByteString.copyFromUtf8(v)));
            return this;
        }

        Rnn strings(String name, String... v) {
            Onnx.AttributeProto.Builder a = Onnx.AttributeProto.newBuilder().setName(name)
                    .setType(Onnx.AttributeProto.AttributeType.STRINGS);
            for (String s : v) {
                a.addStrings(com.google.protobuf.ByteString.copyFromUtf8(s));
            }
            node.addAttribute(a);
            return this;
        }

        Rnn floats(String name, float... v) {
            Onnx.AttributeProto.Builder a = Onnx.AttributeProto.newBuilder().setName(name)
                    .setType(Onnx.AttributeProto.AttributeType.FLOATS);
            for (float f : v) {
                a.addFloats(f);
            }
            node.addAttribute(a);
            return this;
        }

        /** Runs with the given outputs ("" for an omitted one) and returns them in order (null where omitted). */
        List<Tensor> run(String... outputs) {
            node.addAllOutput(List.of(outputs));
            Onnx.GraphProto.Builder g = Onnx.GraphProto.newBuilder().setName("g").addNode(node);
            for (String name : feeds.keySet()) {
                g.addInput(Onnx.ValueInfoProto.newBuilder().setName(name));
            }
            g.addAllInitializer(inits);
            for (String name : outputs) {
                if (!name.isEmpty()) {
                    g.addOutput(Onnx.ValueInfoProto.newBuilder().setName(name));
                }
            }
            Onnx.ModelProto m = Onnx.ModelProto.newBuilder().setIrVersion(8).setGraph(g)
                    .addOpsetImport(Onnx.OperatorSetIdProto.newBuilder().setDomain("").setVersion(opset)).build();
            Map<String, Tensor> r = KernelHarness.run(m, feeds);
            List<Tensor> out = new ArrayList<>();
            for (String name : outputs) {
                out.add(name.isEmpty() ? null : r.get(name));
            }
            return out;
        }
    }

    private static Tensor t(long[] shape, float... v) {
        return Tensor.ofFloats(v, shape);
    }

    private static Tensor random(long[] shape, long seed) {
        SplittableRandom r = new SplittableRandom(seed);
        float[] v = new float[Tensor.checkedElementCount(shape)];
        for (int i = 0; i < v.length; i++) {
            v[i] = (float) (r.nextDouble() - 0.5);
        }
        return Tensor.ofFloats(v, shape);
    }

    private static Tensor toDouble(Tensor f) {
        double[] d = new double[f.size()];
        for (int i = 0; i < d.length; i++) {
            d[i] = f.floats()[i];
        }
        return Tensor.ofDoubles(d, f.shape());
    }

    private static double sigmoid(double x) {
        return 1 / (1 + Math.exp(-x));
    }

    private static final long[] ONE = {1, 1, 1};

    @Test
    void rnnSingleUnitByHand() {
        // x = [0.5, -1], w = 0.8, r = 0.3, wb = 0.1, rb = -0.2, h0 = 0.4
        Tensor x = t(new long[] {2, 1, 1}, 0.5f, -1f);
        List<Tensor> out = new Rnn("RNN", 14).in(x).constIn(t(ONE, 0.8f)).constIn(t(ONE, 0.3f))
                .constIn(t(new long[] {1, 2}, 0.1f, -0.2f)).none().in(t(ONE, 0.4f)).attr("hidden_size", 1L)
                .run("y", "yh");
        double h1 = Math.tanh(0.5 * 0.8 + 0.4 * 0.3 - 0.1);
        double h2 = Math.tanh(-0.8 + h1 * 0.3 - 0.1);
        assertArrayEquals(new long[] {2, 1, 1, 1}, out.get(0).shape());
        assertArrayEquals(new float[] {(float) h1, (float) h2}, out.get(0).floats(), 1e-6f);
        assertArrayEquals(new float[] {(float) h2}, out.get(1).floats(), 1e-6f);
    }

    @Test
    void activationAlphaAndBetaAreConsumedInOrder() {
        // Affine(alpha=2, beta=0.5): h = 2 * (x w + h r) + 0.5
        Tensor x = t(new long[] {2, 1, 1}, 1f, 2f);
        Tensor y = new Rnn("RNN", 7).in(x).in(t(ONE, 1f)).in(t(ONE, 0.5f)).attr("hidden_size", 1L)
                .strings("activations", "Affine").floats("activation_alpha", 2f).floats("activation_beta", 0.5f)
                .run("y").get(0);
        float h1 = 2 * 1 + 0.5f;
        float h2 = 2 * (2 + 0.5f * h1) + 0.5f;
        assertArrayEquals(new float[] {h1, h2}, y.floats(), 1e-6f);
        // LeakyRelu takes its default alpha 0.01 when none is given
        Tensor z = new Rnn("RNN", 7).in(t(ONE, -3f)).in(t(ONE, 1f)).in(t(ONE, 0f)).attr("hidden_size", 1L)
                .strings("activations", "leakyrelu").run("y").get(0);
        assertArrayEquals(new float[] {-0.03f}, z.floats(), 1e-7f);
    }

    @Test
    void lstmSingleUnitWithPeepholesClipAndInputForget() {
        // gates i, o, f, c with w = [1, 2, 3, 4], r = 0, no bias, peepholes [pi, po, pf] = [0.5, 0.25, 1]
        Tensor w = t(new long[] {1, 4, 1}, 1, 2, 3, 4);
        Tensor r = t(new long[] {1, 4, 1}, 0, 0, 0, 0);
        Tensor p = t(new long[] {1, 3}, 0.5f, 0.25f, 1f);
        Tensor x = t(ONE, 0.5f);
        Tensor c0 = t(ONE, 0.2f);
        List<Tensor> out = new Rnn("LSTM", 14).in(x).in(w).in(r).none().none().none().in(c0).in(p)
                .attr("hidden_size", 1L).attr("clip", 1.2f).run("y", "yh", "yc");
        double i = sigmoid(Math.min(1.2, 0.5 + 0.5 * 0.2));
        double f = sigmoid(Math.min(1.2, 1.5 + 1 * 0.2));
        double g = Math.tanh(Math.min(1.2, 2.0));
        double c = f * 0.2 + i * g;
        double o = sigmoid(Math.min(1.2, 1.0 + 0.25 * c));
        double h = o * Math.tanh(c);
        assertArrayEquals(new float[] {(float) h}, out.get(0).floats(), 1e-6f);
        assertArrayEquals(new float[] {(float) h}, out.get(1).floats(), 1e-6f);
        assertArrayEquals(new float[] {(float) c}, out.get(2).floats(), 1e-6f);
        // input_forget couples the input gate to 1 - f
        Tensor yc = new Rnn("LSTM", 14).in(x).in(w).in(r).none().none().none().in(c0).attr("hidden_size", 1L)
                .attr("input_forget", 1L).run("", "", "yc").get(2);
        double f2 = sigmoid(1.5);
        assertArrayEquals(new float[] {(float) (f2 * 0.2 + (1 - f2) * Math.tanh(2.0))}, yc.floats(), 1e-6f);
    }

    @Test
    void gruLinearBeforeResetByHand() {
        // z, r, h weights w = [0.5, -0.5, 1], recurrence r = [0.2, 0.4, 0.6], biases wb = [0, 0, 0.1],
        // rb = [0, 0, 0.3], h0 = 0.5, x = 1
        Tensor w = t(new long[] {1, 3, 1}, 0.5f, -0.5f, 1f);
        Tensor rr = t(new long[] {1, 3, 1}, 0.2f, 0.4f, 0.6f);
        Tensor b = t(new long[] {1, 6}, 0, 0, 0.1f, 0, 0, 0.3f);
        Tensor x = t(ONE, 1f);
        Tensor h0 = t(ONE, 0.5f);
        double z = sigmoid(0.5 + 0.1);
        double r = sigmoid(-0.5 + 0.2);
        double before = Math.tanh(1 + 0.1 + r * (0.5 * 0.6 + 0.3));
        double after = Math.tanh(1 + 0.1 + (r * 0.5) * 0.6 + 0.3);
        for (long lbr = 0; lbr <= 1; lbr++) {
            double hh = lbr == 1 ? before : after;
            Tensor yh = new Rnn("GRU", 14).in(x).in(w).in(rr).in(b).none().in(h0).attr("hidden_size", 1L)
                    .attr("linear_before_reset", lbr).run("", "yh").get(1);
            assertArrayEquals(new float[] {(float) ((1 - z) * hh + z * 0.5)}, yh.floats(), 1e-6f, "lbr " + lbr);
        }
    }

    /** Reverses a [seq, batch, input] tensor along the sequence. */
    private static Tensor reverseSeq(Tensor x) {
        int seq = (int) x.dim(0);
        int row = (int) (x.dim(1) * x.dim(2));
        float[] v = new float[x.size()];
        for (int t = 0; t < seq; t++) {
            System.arraycopy(x.floats(), t * row, v, (seq - 1 - t) * row, row);
        }
        return Tensor.ofFloats(v, x.shape());
    }

    @Test
    void bidirectionalIsForwardPlusReverseAndReverseReadsBackwards() {
        int hidden = 3;
        Tensor x = random(new long[] {4, 2, 5}, 1);
        Tensor w = random(new long[] {2, 3 * hidden, 5}, 2);
        Tensor r = random(new long[] {2, 3 * hidden, hidden}, 3);
        Tensor b = random(new long[] {2, 6 * hidden}, 4);
        List<Tensor> both = new Rnn("GRU", 14).in(x).constIn(w).constIn(r).constIn(b).attr("hidden_size", 3L)
                .attr("direction", "bidirectional").run("y", "yh");
        Tensor w1 = Tensor.ofFloats(java.util.Arrays.copyOfRange(w.floats(), 15 * hidden, 30 * hidden), 1, 9, 5);
        Tensor r1 = Tensor.ofFloats(java.util.Arrays.copyOfRange(r.floats(), 27, 54), 1, 9, 3);
        Tensor b1 = Tensor.ofFloats(java.util.Arrays.copyOfRange(b.floats(), 18, 36), 1, 18);
        List<Tensor> rev = new Rnn("GRU", 14).in(x).in(w1).in(r1).in(b1).attr("hidden_size", 3L)
                .attr("direction", "reverse").run("y", "yh");
        List<Tensor> fwdOfReversed = new Rnn("GRU", 14).in(reverseSeq(x)).in(w1).in(r1).in(b1)
                .attr("hidden_size", 3L).run("y", "yh");
        assertArrayEquals(fwdOfReversed.get(1).floats(), rev.get(1).floats(), 1e-6f);
        // Y [seq, dirs, batch, hidden]: direction 1 of the bidirectional run is the reverse run
        float[] y = both.get(0).floats();
        for (int t = 0; t < 4; t++) {
            float[] dir1 = java.util.Arrays.copyOfRange(y, (t * 2 + 1) * 6, (t * 2 + 2) * 6);
            float[] expected = java.util.Arrays.copyOfRange(rev.get(0).floats(), t * 6, t * 6 + 6);
            assertArrayEquals(expected, dir1, 1e-6f, "time " + t);
        }
        assertArrayEquals(rev.get(1).floats(), java.util.Arrays.copyOfRange(both.get(1).floats(), 6, 12), 1e-6f);
    }

    @Test
    void sequenceLengthsStopEachBatchEntryAndZeroTheRest() {
        Tensor x = random(new long[] {3, 2, 2}, 5);
        Tensor w = random(new long[] {1, 8, 2}, 6);
        Tensor r = random(new long[] {1, 8, 2}, 7);
        List<Tensor> out = new Rnn("LSTM", 14).in(x).in(w).in(r).none().in(Tensor.ofInts(new int[] {3, 1}, 2))
                .attr("hidden_size", 2L).run("y", "yh", "yc");
        float[] y = out.get(0).floats();
        // batch entry 1 stops after one step: Y is zero at times 1 and 2, Y_h is its step-0 output
        for (int t = 1; t < 3; t++) {
            assertArrayEquals(new float[2], java.util.Arrays.copyOfRange(y, (t * 2 + 1) * 2, (t * 2 + 2) * 2));
        }
        assertArrayEquals(java.util.Arrays.copyOfRange(y, 2, 4), java.util.Arrays.copyOfRange(out.get(1).floats(),
                2, 4));
        assertArrayEquals(java.util.Arrays.copyOfRange(y, 8, 10), java.util.Arrays.copyOfRange(out.get(1).floats(),
                0, 2));
    }

    @Test
    void batchFirstLayoutTransposesXYAndStates() {
        Tensor x = random(new long[] {3, 2, 4}, 8);
        Tensor w = random(new long[] {2, 8, 4}, 9);
        Tensor r = random(new long[] {2, 8, 2}, 10);
        Tensor h0 = random(new long[] {2, 2, 2}, 11);
        List<Tensor> seqFirst = new Rnn("LSTM", 14).in(x).in(w).in(r).none().none().in(h0).attr("hidden_size", 2L)
                .attr("direction", "bidirectional").run("y", "yh", "yc");
        // x [seq 3, batch 2, 4] -> [batch, seq, 4]; h0 [dirs, batch, 2] -> [batch, dirs, 2]
        Tensor xb = Tensor.ofFloats(swap01(x.floats(), 3, 2, 4), 2, 3, 4);
        Tensor hb = Tensor.ofFloats(swap01(h0.floats(), 2, 2, 2), 2, 2, 2);
        List<Tensor> batchFirst = new Rnn("LSTM", 14).in(xb).in(w).in(r).none().none().in(hb)
                .attr("hidden_size", 2L).attr("direction", "bidirectional").attr("layout", 1L).run("y", "yh", "yc");
        assertArrayEquals(new long[] {2, 3, 2, 2}, batchFirst.get(0).shape());
        // Y [seq, dirs, batch, h] -> [batch, seq, dirs, h]
        float[] ys = seqFirst.get(0).floats();
        float[] yb = batchFirst.get(0).floats();
        for (int t = 0; t < 3; t++) {
            for (int d = 0; d < 2; d++) {
                for (int b = 0; b < 2; b++) {
                    for (int j = 0; j < 2; j++) {
                        assertEquals(ys[((t * 2 + d) * 2 + b) * 2 + j], yb[((b * 3 + t) * 2 + d) * 2 + j], 1e-6f);
                    }
                }
            }
        }
        assertArrayEquals(swap01(seqFirst.get(2).floats(), 2, 2, 2), batchFirst.get(2).floats(), 1e-6f);
    }

    private static float[] swap01(float[] v, int a, int b, int inner) {
        float[] out = new float[v.length];
        for (int i = 0; i < a; i++) {
            for (int j = 0; j < b; j++) {
                System.arraycopy(v, (i * b + j) * inner, out, (j * a + i) * inner, inner);
            }
        }
        return out;
    }

    @Test
    void float64AgreesWithFloat32AndConstantWeightsWithFedOnes() {
        Tensor x = random(new long[] {5, 3, 4}, 12);
        Tensor w = random(new long[] {1, 6, 4}, 13);
        Tensor r = random(new long[] {1, 6, 2}, 14);
        Tensor b = random(new long[] {1, 12}, 15);
        Tensor constant = new Rnn("GRU", 14).in(x).constIn(w).constIn(r).constIn(b).attr("hidden_size", 2L)
                .run("y").get(0);
        Tensor fed = new Rnn("GRU", 14).in(x).in(w).in(r).in(b).attr("hidden_size", 2L).run("y").get(0);
        assertArrayEquals(constant.floats(), fed.floats());
        Tensor dbl = new Rnn("GRU", 14).in(toDouble(x)).constIn(toDouble(w)).constIn(toDouble(r))
                .constIn(toDouble(b)).attr("hidden_size", 2L).run("y").get(0);
        for (int i = 0; i < dbl.size(); i++) {
            assertEquals(constant.floats()[i], dbl.doubles()[i], 1e-5);
        }
    }

    @Test
    void badShapesAndAttributesAreRefusedByName() {
        Tensor x = random(new long[] {1, 1, 3}, 16);
        InvalidArgumentException e = assertThrows(InvalidArgumentException.class, () -> new Rnn("RNN", 14).in(x)
                .in(random(new long[] {1, 2, 4}, 17)).in(random(new long[] {1, 2, 2}, 18)).run("y"));
        assertEquals(true, e.getMessage().contains("'X'"), e.getMessage());
        NotImplementedException n = assertThrows(NotImplementedException.class, () -> new Rnn("RNN", 14).in(x)
                .in(random(new long[] {1, 2, 3}, 17)).in(random(new long[] {1, 2, 2}, 18))
                .strings("activations", "Gelu").run("y"));
        assertEquals(true, n.getMessage().contains("'activations'"), n.getMessage());
    }
}
