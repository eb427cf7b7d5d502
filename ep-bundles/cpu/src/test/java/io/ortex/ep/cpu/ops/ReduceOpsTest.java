package io.ortex.ep.cpu.ops;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.ortex.api.ElementType;
import io.ortex.api.HalfFloats;
import io.ortex.api.InvalidArgumentException;
import io.ortex.api.Tensor;
import io.ortex.ep.cpu.KernelHarness;
import io.ortex.onnx.TensorCodec;
import io.ortex.onnx.proto.Onnx;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Focused cases of the reduction, arg-max/min and softmax kernels: opsets, axes, keepdims, types, empty sets. */
class ReduceOpsTest {

    /** A one-node model under construction; inputs are graph inputs, constant initializers or omitted. */
    static final class Model {
        private final int opset;
        private final Onnx.NodeProto.Builder node = Onnx.NodeProto.newBuilder();
        private final Map<String, Tensor> feeds = new LinkedHashMap<>();
        private final List<Onnx.TensorProto> inits = new ArrayList<>();
        private final List<String> outputs = new ArrayList<>();

        Model(String op, int opset) {
            this.opset = opset;
            node.setOpType(op).setName(op + "_node");
        }

        Model in(Tensor t) {
            String name = "in" + node.getInputCount();
            node.addInput(name);
            feeds.put(name, t);
            return this;
        }

        Model constIn(Tensor t) {
            String name = "in" + node.getInputCount();
            node.addInput(name);
            inits.add(TensorCodec.toProto(t, name));
            return this;
        }

        Model none() {
            node.addInput("");
            return this;
        }

        Model ints(String name, long... v) {
            Onnx.AttributeProto.Builder a = Onnx.AttributeProto.newBuilder().setName(name)
                    .setType(Onnx.AttributeProto.AttributeType.INTS);
            for (long x : v) {
                a.addInts(x);
            }
            node.addAttribute(a);
            return this;
        }

        Model attr(String name, long v) {
            node.addAttribute(Onnx.AttributeProto.newBuilder().setName(name)
                    .setType(Onnx.AttributeProto.AttributeType.INT).setI(v));
            return this;
        }

        Model attr(String name, float v) {
            node.addAttribute(Onnx.AttributeProto.newBuilder().setName(name)
                    .setType(Onnx.AttributeProto.AttributeType.FLOAT).setF(v));
            return this;
        }

        Model outputs(int n) {
            for (int i = 0; i < n; i++) {
                outputs.add("out" + i);
            }
            return this;
        }

        List<Tensor> run() {
            if (outputs.isEmpty()) {
                outputs(1);
            }
            node.addAllOutput(outputs);
            Onnx.GraphProto.Builder g = Onnx.GraphProto.newBuilder().setName("g").addNode(node);
            for (String name : feeds.keySet()) {
                g.addInput(Onnx.ValueInfoProto.newBuilder().setName(name));
            }
            g.addAllInitializer(inits);
            for (String name : outputs) {
                g.addOutput(Onnx.ValueInfoProto.newBuilder().setName(name));
            }
            Onnx.ModelProto m = Onnx.ModelProto.newBuilder().setIrVersion(8).setGraph(g)
                    .addOpsetImport(Onnx.OperatorSetIdProto.newBuilder().setDomain("").setVersion(opset)).build();
            return new ArrayList<>(KernelHarness.run(m, feeds).values());
        }

        Tensor run1() {
            return run().get(0);
        }
    }

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
        Tensor y = new Model("ReduceSum", 11).in(iota(S234)).ints("axes", -1).run1();
        assertArrayEquals(new long[] {2, 3, 1}, y.shape());
        assertClose(new float[] {6, 22, 38, 54, 70, 86}, y);
    }

    @Test
    void reduceSumAxesFromInputFromOpset13() {
        Tensor y = new Model("ReduceSum", 13).in(iota(S234)).constIn(Tensor.ofLongs(new long[] {1}, 1))
                .attr("keepdims", 0L).run1();
        assertArrayEquals(new long[] {2, 4}, y.shape());
        assertClose(new float[] {12, 15, 18, 21, 48, 51, 54, 57}, y);
        // the same with a runtime axes input
        Tensor z = new Model("ReduceSum", 13).in(iota(S234)).in(Tensor.ofLongs(new long[] {-2}, 1))
                .attr("keepdims", 0L).run1();
        assertClose(y.floats(), z);
    }

    @Test
    void reduceMeanOverNonContiguousAxes() {
        Tensor y = new Model("ReduceMean", 13).in(iota(S234)).ints("axes", 0, 2).run1();
        assertArrayEquals(new long[] {1, 3, 1}, y.shape());
        // channel j: mean of {4j..4j+3} and {12+4j..12+4j+3}
        assertClose(new float[] {7.5f, 11.5f, 15.5f}, y);
    }

    @Test
    void reduceMaxAndMinOverMiddleAxis() {
        Tensor x = floats(new long[] {2, 3, 2}, 1, -1, 5, 2, 3, 9, -4, 0, -2, 7, 8, -6);
        assertClose(new float[] {5, 9, 8, 7}, new Model("ReduceMax", 18).in(x)
                .constIn(Tensor.ofLongs(new long[] {1}, 1)).attr("keepdims", 0L).run1());
        assertClose(new float[] {1, -1, -4, -6}, new Model("ReduceMin", 11).in(x).ints("axes", 1)
                .attr("keepdims", 0L).run1());
    }

    @Test
    void defaultAxesReduceEverythingAndNoopKeepsTheInput() {
        Tensor x = floats(new long[] {2, 2}, 1, 2, 3, 4);
        Tensor all = new Model("ReduceProd", 18).in(x).attr("keepdims", 0L).run1();
        assertEquals(0, all.rank());
        assertClose(new float[] {24}, all);
        Tensor noop = new Model("ReduceSumSquare", 18).in(x).constIn(Tensor.ofLongs(new long[0], 0))
                .attr("noop_with_empty_axes", 1L).run1();
        assertArrayEquals(new long[] {2, 2}, noop.shape());
        assertClose(new float[] {1, 4, 9, 16}, noop);
    }

    @Test
    void otherReductionsAlongTheLastAxis() {
        Tensor x = floats(new long[] {2, 2}, 3, -4, 1, 2);
        assertClose(new float[] {7, 3}, new Model("ReduceL1", 13).in(x).ints("axes", 1).run1());
        assertClose(new float[] {5, (float) Math.sqrt(5)}, new Model("ReduceL2", 13).in(x).ints("axes", 1).run1());
        assertClose(new float[] {(float) Math.log(4), (float) Math.log(3)},
                new Model("ReduceLogSum", 13).in(floats(new long[] {2, 2}, 3, 1, 1, 2)).ints("axes", 1).run1());
        assertClose(new float[] {(float) Math.log(Math.exp(3) + Math.exp(-4)),
            (float) Math.log(Math.exp(1) + Math.exp(2))},
                new Model("ReduceLogSumExp", 13).in(x).ints("axes", 1).run1());
        assertClose(new float[] {25, 5}, new Model("ReduceSumSquare", 13).in(x).ints("axes", 1).run1());
    }

    @Test
    void emptyReductionsGiveTheIdentity() {
        Tensor x = Tensor.ofFloats(new float[0], 2, 0, 3);
        Tensor axes = Tensor.ofLongs(new long[] {1}, 1);
        assertClose(new float[] {0, 0, 0, 0, 0, 0}, new Model("ReduceSum", 13).in(x).constIn(axes).run1());
        assertClose(new float[] {1, 1, 1, 1, 1, 1}, new Model("ReduceProd", 18).in(x).constIn(axes).run1());
        float[] max = new Model("ReduceMax", 18).in(x).constIn(axes).run1().floats();
        assertEquals(Float.NEGATIVE_INFINITY, max[0]);
        float[] lse = new Model("ReduceLogSumExp", 18).in(x).constIn(axes).run1().floats();
        assertEquals(Float.NEGATIVE_INFINITY, lse[5]);
        Tensor keptZero = new Model("ReduceSum", 13).in(x).constIn(Tensor.ofLongs(new long[] {2}, 1)).run1();
        assertArrayEquals(new long[] {2, 0, 1}, keptZero.shape());
    }

    @Test
    void integerAndBoolReductionsAreExact() {
        Tensor big = Tensor.ofLongs(new long[] {Long.MAX_VALUE - 10, 3, -7, 2}, 2, 2);
        Tensor s = new Model("ReduceSum", 13).in(big).constIn(Tensor.ofLongs(new long[] {1}, 1)).run1();
        assertArrayEquals(new long[] {Long.MAX_VALUE - 7, -5}, s.longs());
        Tensor ints = Tensor.ofInts(new int[] {7, 2, 5, 4}, 2, 2);
        assertArrayEquals(new int[] {4, 4}, new Model("ReduceMean", 13).in(ints).ints("axes", 1).run1().ints());
        Tensor intMax = new Model("ReduceMax", 18).in(Tensor.ofInts(new int[0], 0, 2))
                .constIn(Tensor.ofLongs(new long[] {0}, 1)).run1();
        assertArrayEquals(new int[] {Integer.MIN_VALUE, Integer.MIN_VALUE}, intMax.ints());
        Tensor bools = Tensor.ofBooleans(new boolean[] {true, false, true, true}, 2, 2);
        assertArrayEquals(new boolean[] {false, true}, new Model("ReduceMin", 20).in(bools)
                .constIn(Tensor.ofLongs(new long[] {1}, 1)).attr("keepdims", 0L).run1().booleans());
        assertArrayEquals(new boolean[] {true, true}, new Model("ReduceMax", 20).in(bools)
                .constIn(Tensor.ofLongs(new long[] {1}, 1)).attr("keepdims", 0L).run1().booleans());
    }

    @Test
    void doubleAndHalfReductions() {
        Tensor d = Tensor.ofDoubles(new double[] {1e-3, 2, 3, 4}, 2, 2);
        assertArrayEquals(new double[] {2.001, 7}, new Model("ReduceSum", 11).in(d).ints("axes", 1)
                .attr("keepdims", 0L).run1().doubles(), 1e-12);
        short[] h = {HalfFloats.floatToFloat16(1.5f), HalfFloats.floatToFloat16(2.5f)};
        Tensor y = new Model("ReduceMean", 13).in(Tensor.of(ElementType.FLOAT16, new long[] {2}, h)).run1();
        assertEquals(ElementType.FLOAT16, y.type());
        assertEquals(2.0f, HalfFloats.float16ToFloat(y.shorts()[0]));
    }

    @Test
    void badAxesAreRejected() {
        assertThrows(InvalidArgumentException.class,
                () -> new Model("ReduceSum", 11).in(iota(S234)).ints("axes", 3).run1());
        assertThrows(InvalidArgumentException.class,
                () -> new Model("ReduceMean", 13).in(iota(S234)).ints("axes", 1, -2).run1());
    }

    @Test
    void argMaxAndArgMin() {
        Tensor x = floats(new long[] {2, 3}, 1, 5, 5, 7, 0, 7);
        assertArrayEquals(new long[] {1, 0}, new Model("ArgMax", 13).in(x).attr("axis", -1L)
                .attr("keepdims", 0L).run1().longs());
        Tensor last = new Model("ArgMax", 13).in(x).attr("axis", 1L).attr("select_last_index", 1L).run1();
        assertArrayEquals(new long[] {2, 1}, last.shape());
        assertArrayEquals(new long[] {2, 2}, last.longs());
        assertArrayEquals(new long[] {0, 1, 0}, new Model("ArgMin", 11).in(x).run1().longs());
        Tensor ints = Tensor.ofLongs(new long[] {-1, 4, 4, 9}, 4);
        assertArrayEquals(new long[] {0}, new Model("ArgMin", 13).in(ints).run1().longs());
    }

    @Test
    void softmaxBeforeOpset13FlattensFromTheAxis() {
        Tensor x = floats(new long[] {1, 2, 2}, 0, 0, 0, (float) Math.log(5));
        // opset 11, axis 1: one row of 4 elements
        float[] legacy = new Model("Softmax", 11).in(x).run1().floats();
        assertArrayEquals(new float[] {0.125f, 0.125f, 0.125f, 0.625f}, legacy, 1e-6f);
        // opset 13, axis -1: two rows of 2 elements
        float[] modern = new Model("Softmax", 13).in(x).run1().floats();
        assertArrayEquals(new float[] {0.5f, 0.5f, 1 / 6f, 5 / 6f}, modern, 1e-6f);
        // opset 13 along a middle axis
        float[] axis1 = new Model("Softmax", 13).in(x).attr("axis", 1L).run1().floats();
        assertArrayEquals(new float[] {0.5f, 1 / 6f, 0.5f, 5 / 6f}, axis1, 1e-6f);
    }

    @Test
    void logSoftmaxAndHardmax() {
        Tensor x = floats(new long[] {2, 2}, 1000, 1000, 2, 3);
        float[] ls = new Model("LogSoftmax", 13).in(x).run1().floats();
        assertArrayEquals(new float[] {(float) -Math.log(2), (float) -Math.log(2),
            (float) (-1 - Math.log(1 + Math.exp(-1))), (float) -Math.log(1 + Math.exp(-1))}, ls, 1e-5f);
        assertArrayEquals(new float[] {1, 0, 0, 1}, new Model("Hardmax", 13).in(x).run1().floats());
        assertArrayEquals(new float[] {1, 0, 0, 0}, new Model("Hardmax", 11).in(x).attr("axis", 0L).run1().floats());
        double[] d = new Model("Softmax", 13).in(Tensor.ofDoubles(new double[] {0, Math.log(3)}, 2)).run1().doubles();
        assertArrayEquals(new double[] {0.25, 0.75}, d, 1e-12);
    }

    @Test
    void softmaxOfZeroSizeAndScalar() {
        assertEquals(0, new Model("Softmax", 13).in(Tensor.ofFloats(new float[0], 3, 0)).run1().size());
        assertClose(new float[] {1}, new Model("Softmax", 13).in(Tensor.ofFloats(new float[] {4}, 1)).run1());
    }
    @Test
    void attentionSingleHeadWithDefaultScale() {
        Tensor q = floats(new long[] {1, 1, 1, 2}, 1, 0);
        Tensor k = floats(new long[] {1, 1, 2, 2}, 1, 0, 0, 0);
        Tensor v = floats(new long[] {1, 1, 2, 1}, 2, 4);
        Tensor y = new Model("Attention", 23).in(q).in(k).in(v).run1();
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
        assertClose(new float[] {2, 3}, new Model("Attention", 23).in(q).in(k).in(v).attr("is_causal", 1L).run1());
        // a bool mask that hides key 1 from every query
        Tensor mask = Tensor.ofBooleans(new boolean[] {true, false}, 1, 2);
        assertClose(new float[] {2, 2}, new Model("Attention", 23).in(q).in(k).in(v).in(mask).run1());
        // one past entry: a single query sees past key and new key, and present holds both
        Tensor q1 = floats(new long[] {1, 1, 1, 1}, 1);
        Tensor k1 = floats(new long[] {1, 1, 1, 1}, 0);
        Tensor v1 = floats(new long[] {1, 1, 1, 1}, 4);
        List<Tensor> out = new Model("Attention", 23).in(q1).in(k1).in(v1).none()
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
        Tensor y = new Model("Attention", 23).in(q).in(k).in(v).attr("q_num_heads", 2L).attr("kv_num_heads", 1L)
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
        assertClose(new float[] {-3, 2, 1, 4}, new Model("RotaryEmbedding", 23).in(x).in(cos).in(sin).run1());
        // pairs (x0, x1) rotated, (x2, x3) unchanged
        assertClose(new float[] {-2, 1, 3, 4}, new Model("RotaryEmbedding", 23).in(x).in(cos).in(sin)
                .attr("interleaved", 1L).run1());
        // position ids pick the cache row; a rotary dimension of 2 leaves the rest alone
        Tensor cache = floats(new long[] {2, 1}, 1, 0);
        Tensor sinCache = floats(new long[] {2, 1}, 0, 1);
        Tensor packed = floats(new long[] {1, 1, 4}, 1, 2, 3, 4);
        assertClose(new float[] {-2, 1, 3, 4}, new Model("RotaryEmbedding", 23).in(packed).in(cache).in(sinCache)
                .in(Tensor.ofLongs(new long[] {1}, 1, 1)).attr("num_heads", 1L).attr("rotary_embedding_dim", 2L)
                .run1());
    }
}
