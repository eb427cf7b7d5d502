package io.ortex.ep.cpu.ops.tensor;

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

/** Focused cases of the shape and data-movement kernels: opset differences, negative axes, types, zero sizes. */
class ShapeOpsTest {

    /** Builds a one-node model; inputs named by {@code in}, "" for an omitted input. */
    static final class Node {
        final String op;
        final int opset;
        final List<String> inputs = new ArrayList<>();
        final List<String> outputs = new ArrayList<>();
        final Onnx.NodeProto.Builder node = Onnx.NodeProto.newBuilder();
        final Map<String, Tensor> feeds = new LinkedHashMap<>();
        final List<Onnx.TensorProto> inits = new ArrayList<>();

        Node(String op, int opset) {
            this.op = op;
            this.opset = opset;
            node.setOpType(op);
        }

        Node in(String name, Tensor t) {
            inputs.add(name);
            feeds.put(name, t);
            return this;
        }

        Node constIn(String name, Tensor t) {
            inputs.add(name);
            inits.add(TensorCodec.toProto(t, name));
            return this;
        }

        Node none() {
            inputs.add("");
            return this;
        }

        Node ints(String name, long... v) {
            Onnx.AttributeProto.Builder a = Onnx.AttributeProto.newBuilder().setName(name)
                    .setType(Onnx.AttributeProto.AttributeType.INTS);
            for (long x : v) {
                a.addInts(x);
            }
            node.addAttribute(a);
            return this;
        }

        Node attr(String name, long v) {
            node.addAttribute(Onnx.AttributeProto.newBuilder().setName(name)
                    .setType(Onnx.AttributeProto.AttributeType.INT).setI(v));
            return this;
        }

        Node attr(String name, float v) {
            node.addAttribute(Onnx.AttributeProto.newBuilder().setName(name)
                    .setType(Onnx.AttributeProto.AttributeType.FLOAT).setF(v));
            return this;
        }

        Node attr(String name, String v) {
            node.addAttribute(Onnx.AttributeProto.newBuilder().setName(name)
                    .setType(Onnx.AttributeProto.AttributeType.STRING)
                    .setS(com.google.protobuf.ByteString.copyFromUtf8(v)));
            return this;
        }

        Node attr(String name, Tensor v) {
            node.addAttribute(Onnx.AttributeProto.newBuilder().setName(name)
                    .setType(Onnx.AttributeProto.AttributeType.TENSOR).setT(TensorCodec.toProto(v, name)));
            return this;
        }

        Tensor[] run(int outputs) {
            Onnx.GraphProto.Builder g = Onnx.GraphProto.newBuilder().setName("g");
            node.addAllInput(inputs);
            for (String name : feeds.keySet()) {
                g.addInput(Onnx.ValueInfoProto.newBuilder().setName(name));
            }
            g.addAllInitializer(inits);
            for (int i = 0; i < outputs; i++) {
                node.addOutput("y" + i);
                g.addOutput(Onnx.ValueInfoProto.newBuilder().setName("y" + i));
            }
            g.addNode(node);
            Onnx.ModelProto m = Onnx.ModelProto.newBuilder().setIrVersion(8).setGraph(g)
                    .addOpsetImport(Onnx.OperatorSetIdProto.newBuilder().setDomain("").setVersion(opset)).build();
            Map<String, Tensor> out = KernelHarness.run(m, feeds);
            return out.values().toArray(new Tensor[0]);
        }

        Tensor run() {
            return run(1)[0];
        }
    }

    static Tensor floats(long[] shape, float... v) {
        return Tensor.ofFloats(v, shape);
    }

    static Tensor iota(long... shape) {
        int n = Tensor.checkedElementCount(shape);
        float[] v = new float[n];
        for (int i = 0; i < n; i++) {
            v[i] = i;
        }
        return Tensor.ofFloats(v, shape);
    }

    static Tensor longs(long... v) {
        return Tensor.ofLongs(v, v.length);
    }

    static long[] s(long... dims) {
        return dims;
    }

    @Test
    void reshapeCopiesZeroInfersMinusOneAndHonoursAllowZero() {
        Tensor y = new Node("Reshape", 13).in("x", iota(2, 3, 4)).in("s", longs(0, -1)).run();
        assertArrayEquals(s(2, 12), y.shape());
        Tensor z = new Node("Reshape", 14).attr("allowzero", 1L).in("x", Tensor.zeros(ElementType.FLOAT, 0, 3))
                .in("s", longs(3, 0)).run();
        assertArrayEquals(s(3, 0), z.shape());
        Tensor old = new Node("Reshape", 1).ints("shape", 4, -1).in("x", iota(2, 3, 4)).run();
        assertArrayEquals(s(4, 6), old.shape());
        assertThrows(InvalidArgumentException.class,
                () -> new Node("Reshape", 13).in("x", iota(2, 3)).in("s", longs(-1, -1)).run());
    }

    @Test
    void transposeDefaultReversesAndPermutesAnyType() {
        Tensor y = new Node("Transpose", 13).in("x", iota(2, 3)).run();
        assertArrayEquals(s(3, 2), y.shape());
        assertArrayEquals(new float[] {0, 3, 1, 4, 2, 5}, y.floats());
        // a big NCHW -> NHWC transpose goes through the tiled float path; check against index arithmetic
        Tensor x = iota(2, 40, 7, 9);
        Tensor t = new Node("Transpose", 13).ints("perm", 0, 2, 3, 1).in("x", x).run();
        float[] tv = t.floats();
        for (int n = 0; n < 2; n++) {
            for (int c = 0; c < 40; c++) {
                for (int h = 0; h < 7; h++) {
                    for (int w = 0; w < 9; w++) {
                        assertEquals(((n * 40 + c) * 7 + h) * 9 + w, tv[((n * 7 + h) * 9 + w) * 40 + c]);
                    }
                }
            }
        }
        Tensor strings = Tensor.ofStrings(new String[] {"a", "b", "c", "d", "e", "f"}, 3, 2);
        Tensor ts = new Node("Transpose", 13).in("x", strings).run();
        assertArrayEquals(new String[] {"a", "c", "e", "b", "d", "f"}, ts.strings());
        short[] half = {HalfFloats.floatToFloat16(1), HalfFloats.floatToFloat16(2), HalfFloats.floatToFloat16(3),
            HalfFloats.floatToFloat16(4)};
        Tensor th = new Node("Transpose", 13).in("x", Tensor.of(ElementType.FLOAT16, s(2, 2), half)).run();
        assertArrayEquals(new short[] {half[0], half[2], half[1], half[3]}, th.shorts());
    }

    @Test
    void concatNegativeAxisAndEmptyInputs() {
        Tensor y = new Node("Concat", 13).attr("axis", -1L).in("a", iota(2, 2)).in("b", iota(2, 0))
                .in("c", floats(s(2, 1), 7, 8)).run();
        assertArrayEquals(s(2, 3), y.shape());
        assertArrayEquals(new float[] {0, 1, 7, 2, 3, 8}, y.floats());
        Tensor b = new Node("Concat", 13).attr("axis", 0L).in("a", Tensor.ofBooleans(new boolean[] {true}, 1))
                .in("b", Tensor.ofBooleans(new boolean[] {false, true}, 2)).run();
        assertArrayEquals(new boolean[] {true, false, true}, b.booleans());
    }

    @Test
    void gatherNegativeScalarAndInt32Indices() {
        Tensor data = iota(3, 2);
        Tensor y = new Node("Gather", 13).in("d", data).in("i", Tensor.ofLongs(new long[] {-1})).run();
        assertArrayEquals(s(2), y.shape());
        assertArrayEquals(new float[] {4, 5}, y.floats());
        Tensor z = new Node("Gather", 13).attr("axis", 1L).in("d", data)
                .in("i", Tensor.ofInts(new int[] {1, 0, 1}, 3)).run();
        assertArrayEquals(s(3, 3), z.shape());
        assertArrayEquals(new float[] {1, 0, 1, 3, 2, 3, 5, 4, 5}, z.floats());
        Tensor words = Tensor.ofStrings(new String[] {"x", "y", "z"}, 3);
        Tensor w = new Node("Gather", 13).in("d", words).in("i", longs(2, 0)).run();
        assertArrayEquals(new String[] {"z", "x"}, w.strings());
        assertThrows(InvalidArgumentException.class,
                () -> new Node("Gather", 13).in("d", data).in("i", longs(3)).run());
    }

    @Test
    void squeezeAndUnsqueezeAcrossOpsets() {
        Tensor x = iota(1, 3, 1);
        assertArrayEquals(s(3), new Node("Squeeze", 11).in("x", x).run().shape());
        assertArrayEquals(s(1, 3), new Node("Squeeze", 11).ints("axes", -1).in("x", x).run().shape());
        assertArrayEquals(s(3, 1), new Node("Squeeze", 13).in("x", x).in("a", longs(0)).run().shape());
        assertArrayEquals(s(1, 1, 3, 1), new Node("Unsqueeze", 11).ints("axes", 0).in("x", x).run().shape());
        assertArrayEquals(s(1, 3, 1, 1), new Node("Unsqueeze", 13).in("x", x).in("a", longs(-1)).run().shape());
        assertThrows(InvalidArgumentException.class,
                () -> new Node("Squeeze", 13).in("x", x).in("a", longs(1)).run());
    }

    @Test
    void shapeRangeAndSize() {
        Tensor x = iota(2, 3, 4);
        assertArrayEquals(new long[] {2, 3, 4}, new Node("Shape", 13).in("x", x).run().longs());
        assertArrayEquals(new long[] {3}, new Node("Shape", 15).attr("start", 1L).attr("end", -1L).in("x", x).run()
                .longs());
        assertArrayEquals(new long[] {24}, new Node("Size", 13).in("x", x).run().longs());
    }

    @Test
    void sliceAttributesInputsClampingAndNegativeSteps() {
        Tensor x = iota(3, 4);
        Tensor old = new Node("Slice", 1).ints("starts", 1).ints("ends", 1000).ints("axes", 1).in("x", x).run();
        assertArrayEquals(s(3, 3), old.shape());
        Tensor y = new Node("Slice", 13).in("x", x).in("b", longs(-1, 100)).in("e", longs(-1000, -1000))
                .in("a", longs(0, 1)).in("st", longs(-2, -1)).run();
        assertArrayEquals(s(2, 4), y.shape());
        assertArrayEquals(new float[] {11, 10, 9, 8, 3, 2, 1, 0}, y.floats());
        Tensor empty = new Node("Slice", 13).in("x", x).in("b", longs(2)).in("e", longs(1)).run();
        assertArrayEquals(s(0, 4), empty.shape());
        Tensor longRows = new Node("Slice", 13).in("x", iota(2, 40)).in("b", longs(3)).in("e", longs(35))
                .in("a", longs(1)).run();
        assertEquals(43f, longRows.floats()[32]);
    }

    @Test
    void splitAttributeInputEqualAndUneven() {
        Tensor x = iota(2, 5);
        Tensor[] a = new Node("Split", 11).attr("axis", 1L).ints("split", 2, 3).in("x", x).run(2);
        assertArrayEquals(new float[] {0, 1, 5, 6}, a[0].floats());
        assertArrayEquals(new float[] {2, 3, 4, 7, 8, 9}, a[1].floats());
        Tensor[] b = new Node("Split", 13).attr("axis", -1L).in("x", x).in("s", longs(4, 1)).run(2);
        assertArrayEquals(s(2, 1), b[1].shape());
        Tensor[] c = new Node("Split", 18).attr("axis", 1L).attr("num_outputs", 2L).in("x", x).run(2);
        assertArrayEquals(s(2, 3), c[0].shape());
        assertArrayEquals(s(2, 2), c[1].shape());
        assertThrows(InvalidArgumentException.class,
                () -> new Node("Split", 13).attr("axis", 1L).in("x", x).run(2));
    }

    @Test
    void flattenExpandConstantOfShape() {
        assertArrayEquals(s(6, 4), new Node("Flatten", 13).attr("axis", -1L).in("x", iota(2, 3, 4)).run().shape());
        assertArrayEquals(s(1, 24), new Node("Flatten", 13).attr("axis", 0L).in("x", iota(2, 3, 4)).run().shape());
        Tensor e = new Node("Expand", 13).in("x", floats(s(3, 1), 1, 2, 3)).in("s", longs(2, 1, 2)).run();
        assertArrayEquals(s(2, 3, 2), e.shape());
        assertArrayEquals(new float[] {1, 1, 2, 2, 3, 3, 1, 1, 2, 2, 3, 3}, e.floats());
        Tensor c = new Node("ConstantOfShape", 20).attr("value", Tensor.ofInts(new int[] {7}, 1))
                .in("s", longs(2, 2)).run();
        assertEquals(ElementType.INT32, c.type());
        assertArrayEquals(new int[] {7, 7, 7, 7}, c.ints());
        Tensor d = new Node("ConstantOfShape", 20).in("s", Tensor.ofLongs(new long[0], 0)).run();
        assertEquals(0, d.rank());
        assertEquals(0f, d.floats()[0]);
    }

    @Test
    void padModesAndNegativePads() {
        Tensor x = iota(2, 3);
        Tensor c = new Node("Pad", 13).in("x", x).in("p", longs(0, 1, 0, 2)).in("v", Tensor.ofFloats(new float[] {9}))
                .run();
        assertArrayEquals(new float[] {9, 0, 1, 2, 9, 9, 9, 3, 4, 5, 9, 9}, c.floats());
        Tensor r = new Node("Pad", 13).attr("mode", "reflect").in("x", x).in("p", longs(0, 2, 0, 2)).run();
        assertArrayEquals(new float[] {2, 1, 0, 1, 2, 1, 0, 5, 4, 3, 4, 5, 4, 3}, r.floats());
        Tensor e = new Node("Pad", 2).attr("mode", "edge").ints("pads", 1, 0, 0, 1).in("x", x).run();
        assertArrayEquals(new float[] {0, 1, 2, 2, 0, 1, 2, 2, 3, 4, 5, 5}, e.floats());
        Tensor w = new Node("Pad", 19).attr("mode", "wrap").in("x", x).in("p", longs(0, 1, 0, 1)).run();
        assertArrayEquals(new float[] {2, 0, 1, 2, 0, 5, 3, 4, 5, 3}, w.floats());
        Tensor crop = new Node("Pad", 13).in("x", x).in("p", longs(0, -1, 0, 1)).run();
        assertArrayEquals(new float[] {1, 2, 0, 4, 5, 0}, crop.floats());
        Tensor axes = new Node("Pad", 18).in("x", x).in("p", longs(1, 0)).none().in("a", longs(-1)).run();
        assertArrayEquals(new float[] {0, 0, 1, 2, 0, 3, 4, 5}, axes.floats());
    }

    @Test
    void tileRangeNonZero() {
        Tensor t = new Node("Tile", 13).in("x", floats(s(1, 2), 1, 2)).in("r", longs(2, 2)).run();
        assertArrayEquals(s(2, 4), t.shape());
        assertArrayEquals(new float[] {1, 2, 1, 2, 1, 2, 1, 2}, t.floats());
        Tensor r = new Node("Range", 11).in("a", Tensor.ofInts(new int[] {10})).in("b", Tensor.ofInts(new int[] {4}))
                .in("c", Tensor.ofInts(new int[] {-3})).run();
        assertArrayEquals(new int[] {10, 7}, r.ints());
        Tensor nz = new Node("NonZero", 13).in("x", Tensor.ofBooleans(new boolean[] {true, false, false, true}, 2, 2))
                .run();
        assertArrayEquals(s(2, 2), nz.shape());
        assertArrayEquals(new long[] {0, 1, 0, 1}, nz.longs());
    }

    @Test
    void gatherElementsGatherNDAndCompress() {
        Tensor data = iota(2, 3);
        Tensor ge = new Node("GatherElements", 13).attr("axis", 1L).in("d", data)
                .in("i", Tensor.ofLongs(new long[] {-1, 0, 1, 1}, 2, 2)).run();
        assertArrayEquals(new float[] {2, 0, 4, 4}, ge.floats());
        Tensor nd = new Node("GatherND", 13).attr("batch_dims", 1L).in("d", data)
                .in("i", Tensor.ofLongs(new long[] {2, 0}, 2, 1)).run();
        assertArrayEquals(s(2), nd.shape());
        assertArrayEquals(new float[] {2, 3}, nd.floats());
        Tensor c = new Node("Compress", 11).attr("axis", -1L).in("d", data)
                .in("c", Tensor.ofBooleans(new boolean[] {false, true}, 2)).run();
        assertArrayEquals(s(2, 1), c.shape());
        assertArrayEquals(new float[] {1, 4}, c.floats());
        Tensor flat = new Node("Compress", 11).in("d", data)
                .in("c", Tensor.ofBooleans(new boolean[] {false, true, false, false, true}, 5)).run();
        assertArrayEquals(new float[] {1, 4}, flat.floats());
    }

    @Test
    void scattersWithReductions() {
        Tensor data = iota(2, 3);
        Tensor se = new Node("ScatterElements", 18).attr("axis", 1L).attr("reduction", "max").in("d", data)
                .in("i", Tensor.ofLongs(new long[] {0, 0}, 1, 2)).in("u", floats(s(1, 2), 5, -1)).run();
        assertArrayEquals(new float[] {5, 1, 2, 3, 4, 5}, se.floats());
        Tensor add = new Node("ScatterND", 16).attr("reduction", "add").in("d", data)
                .in("i", Tensor.ofLongs(new long[] {1, 1}, 2, 1)).in("u", floats(s(2, 3), 1, 1, 1, 2, 2, 2)).run();
        assertArrayEquals(new float[] {0, 1, 2, 6, 7, 8}, add.floats());
        Tensor ints = new Node("ScatterND", 13).in("d", Tensor.ofInts(new int[] {1, 2, 3}, 3))
                .in("i", Tensor.ofLongs(new long[] {-1}, 1, 1)).in("u", Tensor.ofInts(new int[] {9}, 1)).run();
        assertArrayEquals(new int[] {1, 2, 9}, ints.ints());
        assertThrows(io.ortex.api.InvalidModelException.class, () -> new Node("ScatterND", 13)
                .attr("reduction", "add").in("d", data).in("i", Tensor.ofLongs(new long[] {0}, 1, 1))
                .in("u", floats(s(1, 3), 1, 1, 1)).run());
    }

    @Test
    void topKTiesAndSmallest() {
        Tensor x = Tensor.ofLongs(new long[] {3, 1, 3, 2, 1}, 1, 5);
        Tensor[] big = new Node("TopK", 11).in("x", x).in("k", longs(3)).run(2);
        assertArrayEquals(new long[] {3, 3, 2}, big[0].longs());
        assertArrayEquals(new long[] {0, 2, 3}, big[1].longs());
        Tensor[] small = new Node("TopK", 11).attr("largest", 0L).attr("axis", -1L).in("x", x).in("k", longs(2))
                .run(2);
        assertArrayEquals(new long[] {1, 1}, small[0].longs());
        assertArrayEquals(new long[] {1, 4}, small[1].longs());
        Tensor[] old = new Node("TopK", 1).attr("k", 1L).in("x", floats(s(2, 2), 1, 2, 4, 3)).run(2);
        assertArrayEquals(new float[] {2, 4}, old[0].floats());
        assertArrayEquals(new long[] {1, 0}, old[1].longs());
    }

    @Test
    void uniqueSortedAndUnsorted() {
        Tensor x = floats(s(6), 2, 1, 1, 3, 4, 3);
        Tensor[] u = new Node("Unique", 11).attr("sorted", 0L).in("x", x).run(4);
        assertArrayEquals(new float[] {2, 1, 3, 4}, u[0].floats());
        assertArrayEquals(new long[] {0, 1, 3, 4}, u[1].longs());
        assertArrayEquals(new long[] {0, 1, 1, 2, 3, 2}, u[2].longs());
        assertArrayEquals(new long[] {1, 2, 2, 1}, u[3].longs());
        Tensor[] sorted = new Node("Unique", 11).in("x", Tensor.ofStrings(new String[] {"b", "a", "b"}, 3)).run(4);
        assertArrayEquals(new String[] {"a", "b"}, sorted[0].strings());
        assertArrayEquals(new long[] {1, 0, 1}, sorted[2].longs());
    }

    @Test
    void oneHotTriluEyeLike() {
        Tensor oh = new Node("OneHot", 11).attr("axis", 0L).in("i", longs(1, -1)).in("d", Tensor.ofLongs(new long[] {3}))
                .in("v", Tensor.ofLongs(new long[] {0, 7}, 2)).run();
        assertArrayEquals(s(3, 2), oh.shape());
        assertArrayEquals(new long[] {0, 0, 7, 0, 0, 7}, oh.longs());
        Tensor tl = new Node("Trilu", 14).attr("upper", 0L).in("x", iota(2, 3)).in("k", Tensor.ofLongs(new long[] {1}))
                .run();
        assertArrayEquals(new float[] {0, 1, 0, 3, 4, 5}, tl.floats());
        Tensor eye = new Node("EyeLike", 9).attr("k", -1L).attr("dtype", (long) ElementType.BOOL.code())
                .in("x", iota(3, 2)).run();
        assertArrayEquals(new boolean[] {false, false, true, false, false, true}, eye.booleans());
    }

    @Test
    void depthToSpaceRoundTripsThroughSpaceToDepth() {
        Tensor x = iota(1, 8, 2, 3);
        for (String mode : new String[] {"DCR", "CRD"}) {
            Tensor d = new Node("DepthToSpace", 13).attr("blocksize", 2L).attr("mode", mode).in("x", x).run();
            assertArrayEquals(s(1, 2, 4, 6), d.shape());
            if (mode.equals("DCR")) {
                Tensor back = new Node("SpaceToDepth", 13).attr("blocksize", 2L).in("x", d).run();
                assertArrayEquals(x.floats(), back.floats());
            }
        }
        Tensor rs = new Node("ReverseSequence", 10).attr("time_axis", 0L).attr("batch_axis", 1L)
                .in("x", iota(3, 2)).in("l", longs(3, 1)).run();
        assertArrayEquals(new float[] {4, 1, 2, 3, 0, 5}, rs.floats());
    }

    /** A context that cuts the range into minChunk pieces and runs them last first, as a thread pool might. */
    static final io.ortex.api.spi.KernelContext CHUNKED = new io.ortex.api.spi.KernelContext() {
        @Override
        public int intraOpThreads() {
            return 4;
        }

        @Override
        public void parallelFor(int count, int minChunk, RangeBody body) {
            int chunk = Math.max(1, minChunk);
            for (int from = (count - 1) / chunk * chunk; from >= 0; from -= chunk) {
                body.run(from, Math.min(count, from + chunk));
            }
        }
    };

    @Test
    void parallelTransposesMatchIndexArithmetic() {
        int b = 3;
        int m = 300;
        int n = 170;
        Tensor x = iota(b, m, n);
        Tensor t = StridedCopy.transpose(x, new int[] {0, 2, 1}, CHUNKED);
        float[] tv = t.floats();
        for (int i = 0; i < b; i++) {
            for (int r = 0; r < m; r++) {
                for (int c = 0; c < n; c++) {
                    assertEquals((i * m + r) * n + c, tv[(i * n + c) * m + r]);
                }
            }
        }
        long[] lv = new long[b * m * n];
        for (int i = 0; i < lv.length; i++) {
            lv[i] = i;
        }
        Tensor l = StridedCopy.transpose(Tensor.ofLongs(lv, b, m, n), new int[] {2, 0, 1}, CHUNKED);
        long[] out = l.longs();
        for (int i = 0; i < b; i++) {
            for (int r = 0; r < m; r++) {
                for (int c = 0; c < n; c++) {
                    assertEquals((i * m + r) * n + c, out[(c * b + i) * m + r]);
                }
            }
        }
    }

    @Test
    void reversedSliceOfStringsAndBytes() {
        Tensor x = Tensor.ofStrings(new String[] {"a", "b", "c", "d"}, 4);
        Tensor y = SliceKernels.slice(x, new long[] {-1}, new long[] {Long.MIN_VALUE}, null, new long[] {-1},
                CHUNKED);
        assertArrayEquals(new String[] {"d", "c", "b", "a"}, y.strings());
        Tensor bytes = Tensor.of(ElementType.UINT8, s(2, 3), new byte[] {1, 2, 3, 4, 5, 6});
        Tensor z = SliceKernels.slice(bytes, new long[] {0, 2}, new long[] {2, 0}, new long[] {0, 1},
                new long[] {1, -2}, CHUNKED);
        assertArrayEquals(s(2, 1), z.shape());
        assertArrayEquals(new byte[] {3, 6}, z.bytes());
    }
}
