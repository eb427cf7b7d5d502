package io.ortex.ep.cpu.ops;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ortex.api.ElementType;
import io.ortex.api.HalfFloats;
import io.ortex.api.OrtexException;
import io.ortex.api.Tensor;
import io.ortex.api.spi.KernelContext;
import io.ortex.api.spi.NodeView;
import io.ortex.ep.cpu.CpuEpFactory;
import io.ortex.ep.cpu.CpuKernel;
import io.ortex.ep.cpu.KernelHarness;
import io.ortex.onnx.ModelReader;
import io.ortex.onnx.TensorCodec;
import io.ortex.onnx.proto.Onnx;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/** Unit tests of the neural-network ops, run through the kernels on one-node models. */
class NnOpsTest {
    private static final Random RANDOM = new Random(42);

    /** A context that really splits the work over threads, to check kernels under parallelFor. */
    private static final KernelContext PARALLEL = new KernelContext() {
        @Override
        public int intraOpThreads() {
            return 4;
        }

        @Override
        public void parallelFor(int count, int minChunk, RangeBody body) {
            int chunks = Math.max(1, Math.min(4, count / Math.max(1, minChunk)));
            IntStream.range(0, chunks).parallel().forEach(c -> body.run((int) ((long) count * c / chunks),
                    (int) ((long) count * (c + 1) / chunks)));
        }
    };

    // ---------------------------------------------------------------- model building

    private static Onnx.AttributeProto intAttr(String name, long v) {
        return Onnx.AttributeProto.newBuilder().setName(name).setType(Onnx.AttributeProto.AttributeType.INT)
                .setI(v).build();
    }

    private static Onnx.AttributeProto floatAttr(String name, float v) {
        return Onnx.AttributeProto.newBuilder().setName(name).setType(Onnx.AttributeProto.AttributeType.FLOAT)
                .setF(v).build();
    }

    private static Onnx.AttributeProto stringAttr(String name, String v) {
        return Onnx.AttributeProto.newBuilder().setName(name).setType(Onnx.AttributeProto.AttributeType.STRING)
                .setS(com.google.protobuf.ByteString.copyFromUtf8(v)).build();
    }

    private static Onnx.AttributeProto intsAttr(String name, long... v) {
        Onnx.AttributeProto.Builder b = Onnx.AttributeProto.newBuilder().setName(name)
                .setType(Onnx.AttributeProto.AttributeType.INTS);
        for (long x : v) {
            b.addInts(x);
        }
        return b.build();
    }

    private static Onnx.AttributeProto floatsAttr(String name, float... v) {
        Onnx.AttributeProto.Builder b = Onnx.AttributeProto.newBuilder().setName(name)
                .setType(Onnx.AttributeProto.AttributeType.FLOATS);
        for (float x : v) {
            b.addFloats(x);
        }
        return b.build();
    }

    /**
     * Builds a one-node model. Inputs whose index is in {@code constants} become constant initializers; a null input
     * is omitted.
     */
    private static Onnx.ModelProto model(String op, int opset, Tensor[] inputs, int outputs, int[] constants,
            Onnx.AttributeProto... attrs) {
        Onnx.NodeProto.Builder node = Onnx.NodeProto.newBuilder().setOpType(op).setName("n");
        Onnx.GraphProto.Builder graph = Onnx.GraphProto.newBuilder().setName("g");
        for (int i = 0; i < inputs.length; i++) {
            if (inputs[i] == null) {
                node.addInput("");
                continue;
            }
            String name = "x" + i;
            node.addInput(name);
            final int index = i;
            if (IntStream.of(constants).anyMatch(c -> c == index)) {
                graph.addInitializer(TensorCodec.toProto(inputs[i], name));
            } else {
                graph.addInput(Onnx.ValueInfoProto.newBuilder().setName(name).setType(Onnx.TypeProto.newBuilder()
                        .setTensorType(Onnx.TypeProto.Tensor.newBuilder().setElemType(inputs[i].type().code()))));
            }
        }
        for (int i = 0; i < outputs; i++) {
            node.addOutput("y" + i);
            graph.addOutput(Onnx.ValueInfoProto.newBuilder().setName("y" + i));
        }
        for (Onnx.AttributeProto a : attrs) {
            node.addAttribute(a);
        }
        graph.addNode(node);
        return Onnx.ModelProto.newBuilder().setIrVersion(8).setGraph(graph)
                .addOpsetImport(Onnx.OperatorSetIdProto.newBuilder().setDomain("").setVersion(opset)).build();
    }

    private static List<Tensor> run(String op, int opset, Tensor[] inputs, int outputs, int[] constants,
            Onnx.AttributeProto... attrs) {
        Map<String, Tensor> feeds = new LinkedHashMap<>();
        for (int i = 0; i < inputs.length; i++) {
            final int index = i;
            if (inputs[i] != null && IntStream.of(constants).noneMatch(c -> c == index)) {
                feeds.put("x" + i, inputs[i]);
            }
        }
        Map<String, Tensor> out = KernelHarness.run(model(op, opset, inputs, outputs, constants, attrs), feeds);
        return new ArrayList<>(out.values());
    }

    private static Tensor run1(String op, int opset, Tensor[] inputs, Onnx.AttributeProto... attrs) {
        return run(op, opset, inputs, 1, new int[0], attrs).get(0);
    }

    /** Runs a one-node model's kernel directly with the threaded context. */
    private static Tensor runParallel(String op, int opset, Tensor[] inputs, int[] constants,
            Onnx.AttributeProto... attrs) {
        NodeView node = ModelReader.read(model(op, opset, inputs, 1, constants, attrs).toByteArray(), null).graph()
                .nodes().get(0);
        CpuKernel k = new CpuEpFactory().registry().lookup(node).create(node);
        return k.run(inputs, PARALLEL)[0];
    }

    private static Tensor random(long... shape) {
        float[] v = new float[Tensor.checkedElementCount(shape)];
        for (int i = 0; i < v.length; i++) {
            v[i] = RANDOM.nextFloat() * 2 - 1;
        }
        return Tensor.ofFloats(v, shape);
    }

    private static Tensor toDouble(Tensor t) {
        double[] d = new double[t.size()];
        for (int i = 0; i < d.length; i++) {
            d[i] = t.getDouble(i);
        }
        return Tensor.ofDoubles(d, t.shape());
    }

    private static void assertClose(Tensor expected, Tensor actual, double tol) {
        assertArrayEquals(expected.shape(), actual.shape(), "shape");
        for (int i = 0; i < expected.size(); i++) {
            double e = expected.getDouble(i);
            double a = actual.getDouble(i);
            assertTrue(Math.abs(e - a) <= tol * (1 + Math.abs(e)), "element " + i + ": expected " + e + ", got " + a);
        }
    }

    /** Naive batched product of float tensors, in double, with NumPy matmul broadcasting. */
    private static Tensor naiveMatMul(Tensor a, Tensor b) {
        MatMulOp.Dims d = MatMulOp.dims(a.shape(), b.shape());
        int[] ia = Broadcast.indexMap(d.batchA(), d.batch());
        int[] ib = Broadcast.indexMap(d.batchB(), d.batch());
        double[] c = new double[d.batchCount() * d.m() * d.n()];
        for (int bt = 0; bt < d.batchCount(); bt++) {
            for (int i = 0; i < d.m(); i++) {
                for (int j = 0; j < d.n(); j++) {
                    double s = 0;
                    for (int k = 0; k < d.k(); k++) {
                        s += a.getDouble(ia[bt] * d.m() * d.k() + i * d.k() + k)
                                * b.getDouble(ib[bt] * d.k() * d.n() + k * d.n() + j);
                    }
                    c[(bt * d.m() + i) * d.n() + j] = s;
                }
            }
        }
        return Tensor.ofDoubles(c, d.outShape());
    }

    // ---------------------------------------------------------------- MatMul and Gemm

    @Test
    void matMulMatchesNaiveProductAcrossPanelsAndRemainders() {
        long[][][] cases = {
            {{7, 5}, {5, 3}},
            {{100, 301}, {301, 270}},
            {{2, 1, 5, 7}, {3, 7, 4}},
            {{7}, {2, 7, 3}},
            {{2, 4, 6}, {6}},
            {{6}, {6}},
            {{1, 130, 64}, {64, 520}},
        };
        for (long[][] c : cases) {
            Tensor a = random(c[0]);
            Tensor b = random(c[1]);
            Tensor expected = naiveMatMul(a, b);
            assertClose(expected, run1("MatMul", 13, new Tensor[] {a, b}), 1e-5);
            assertClose(expected, run("MatMul", 13, new Tensor[] {a, b}, 1, new int[] {1}).get(0), 1e-5);
            assertClose(expected, runParallel("MatMul", 13, new Tensor[] {a, b}, new int[0]), 1e-5);
            assertClose(expected, runParallel("MatMul", 13, new Tensor[] {a, b}, new int[] {1}), 1e-5);
        }
    }

    @Test
    void matMulHandlesZeroSizedDimensions() {
        Tensor y = run1("MatMul", 13, new Tensor[] {random(0, 4), random(4, 3)});
        assertArrayEquals(new long[] {0, 3}, y.shape());
        Tensor z = run1("MatMul", 13, new Tensor[] {random(2, 0), random(0, 3)});
        assertArrayEquals(new long[] {2, 3}, z.shape());
        assertArrayEquals(new float[6], z.floats());
    }

    @Test
    void matMulComputesIntegerDoubleAndHalfTypes() {
        Tensor a = Tensor.ofInts(new int[] {1, 2, 3, 4, 5, 6}, 2, 3);
        Tensor b = Tensor.ofInts(new int[] {1, -1, 2, 0, 3, 1}, 3, 2);
        Tensor y = run1("MatMul", 13, new Tensor[] {a, b});
        assertEquals(ElementType.INT32, y.type());
        assertArrayEquals(new int[] {14, 2, 32, 2}, y.ints());
        Tensor yl = run1("MatMul", 13, new Tensor[] {Tensor.ofLongs(new long[] {1L << 40, 1}, 1, 2),
            Tensor.ofLongs(new long[] {2, 3}, 2, 1)});
        assertArrayEquals(new long[] {(1L << 41) + 3}, yl.longs());
        Tensor da = toDouble(random(3, 4));
        Tensor db = toDouble(random(4, 2));
        assertClose(naiveMatMul(da, db), run1("MatMul", 13, new Tensor[] {da, db}), 1e-12);
        short[] h = {HalfFloats.floatToFloat16(1.5f), HalfFloats.floatToFloat16(-2f)};
        Tensor ha = Tensor.of(ElementType.FLOAT16, new long[] {1, 2}, h);
        Tensor hb = Tensor.of(ElementType.FLOAT16, new long[] {2, 1}, h.clone());
        Tensor hy = run1("MatMul", 13, new Tensor[] {ha, hb});
        assertEquals(ElementType.FLOAT16, hy.type());
        assertEquals(6.25f, HalfFloats.float16ToFloat(hy.shorts()[0]));
    }

    @Test
    void matMulRejectsMismatchedInnerDimensions() {
        assertThrows(OrtexException.class, () -> run1("MatMul", 13, new Tensor[] {random(2, 3), random(4, 2)}));
    }

    @Test
    void gemmAppliesTransposesAlphaBetaAndBroadcastC() {
        Tensor a = random(5, 3);     // transposed: A' is 3 x 5
        Tensor b = random(300, 5);   // transposed: B' is 5 x 300
        Tensor c = random(300);
        Tensor y = run("Gemm", 13, new Tensor[] {a, b, c}, 1, new int[] {1}, intAttr("transA", 1),
                intAttr("transB", 1), floatAttr("alpha", 0.5f), floatAttr("beta", 2f)).get(0);
        double[] expected = new double[3 * 300];
        for (int i = 0; i < 3; i++) {
            for (int j = 0; j < 300; j++) {
                double s = 0;
                for (int k = 0; k < 5; k++) {
                    s += a.getDouble(k * 3 + i) * b.getDouble(j * 5 + k);
                }
                expected[i * 300 + j] = 0.5 * s + 2 * c.getDouble(j);
            }
        }
        assertClose(Tensor.ofDoubles(expected, 3, 300), y, 1e-5);
        // C omitted (allowed from opset 11)
        Tensor a2 = random(4, 6);
        Tensor b2 = random(6, 5);
        assertClose(naiveMatMul(a2, b2), run1("Gemm", 11, new Tensor[] {a2, b2}), 1e-5);
        // integer Gemm with a scalar C
        Tensor yi = run1("Gemm", 13, new Tensor[] {Tensor.ofInts(new int[] {1, 2}, 1, 2),
            Tensor.ofInts(new int[] {3, 4}, 2, 1), Tensor.ofInts(new int[] {10})});
        assertArrayEquals(new int[] {21}, yi.ints());
        assertThrows(OrtexException.class, () -> run1("Gemm", 13, new Tensor[] {a2, b2, random(3)}));
    }

    // ---------------------------------------------------------------- Conv and ConvTranspose

    /** Float32 (im2col + GEMM, constant and runtime weights, threaded) against the direct float64 loop. */
    private static void checkConvAgainstDouble(String op, Tensor x, Tensor w, Tensor b, Onnx.AttributeProto... attrs) {
        Tensor[] in = b == null ? new Tensor[] {x, w} : new Tensor[] {x, w, b};
        Tensor[] din = b == null ? new Tensor[] {toDouble(x), toDouble(w)}
                : new Tensor[] {toDouble(x), toDouble(w), toDouble(b)};
        Tensor expected = run1(op, 22, din, attrs);
        assertEquals(ElementType.DOUBLE, expected.type());
        assertClose(expected, run1(op, 22, in, attrs), 1e-5);
        assertClose(expected, runParallel(op, 22, in, new int[] {1, 2}, attrs), 1e-5);
    }

    @Test
    void convMatchesDirectLoopForGroupsStridesDilationsAndPads() {
        checkConvAgainstDouble("Conv", random(2, 4, 9, 11), random(6, 2, 3, 2), random(6), intAttr("group", 2),
                intsAttr("strides", 2, 1), intsAttr("dilations", 1, 2), intsAttr("pads", 1, 0, 2, 1));
        checkConvAgainstDouble("Conv", random(1, 3, 20, 20), random(3, 1, 3, 3), null, intAttr("group", 3),
                stringAttr("auto_pad", "SAME_LOWER"), intsAttr("strides", 2, 2));
        checkConvAgainstDouble("Conv", random(1, 5, 17, 19), random(7, 5, 1, 1), random(7));
        checkConvAgainstDouble("Conv", random(2, 3, 40), random(4, 3, 5), random(4), intsAttr("pads", 2, 2));
        checkConvAgainstDouble("Conv", random(1, 2, 5, 6, 7), random(3, 2, 2, 3, 2), random(3),
                intsAttr("pads", 1, 0, 1, 0, 1, 1), intsAttr("strides", 1, 2, 2));
        checkConvAgainstDouble("Conv", random(1, 2, 30, 30), random(4, 2, 3, 3), null,
                stringAttr("auto_pad", "SAME_UPPER"));
    }

    @Test
    void convHandlesEmptyBatchAndRejectsChannelMismatch() {
        Tensor y = run1("Conv", 11, new Tensor[] {random(0, 2, 4, 4), random(3, 2, 3, 3)});
        assertArrayEquals(new long[] {0, 3, 2, 2}, y.shape());
        assertThrows(OrtexException.class, () -> run1("Conv", 11, new Tensor[] {random(1, 3, 4, 4),
            random(3, 2, 3, 3)}));
    }

    @Test
    void convTransposeMatchesDirectLoop() {
        checkConvAgainstDouble("ConvTranspose", random(2, 4, 5, 6), random(4, 3, 3, 2), random(6),
                intAttr("group", 2), intsAttr("strides", 2, 3), intsAttr("output_padding", 1, 0),
                intsAttr("pads", 1, 0, 0, 1), intsAttr("dilations", 1, 2));
        checkConvAgainstDouble("ConvTranspose", random(1, 3, 17, 17), random(3, 2, 2, 2), null,
                intsAttr("strides", 2, 2));
        checkConvAgainstDouble("ConvTranspose", random(1, 2, 7), random(2, 2, 3), random(2),
                intsAttr("output_shape", 15), intsAttr("strides", 2));
    }

    @Test
    void convTransposeOutputShapeSetsThePads() {
        // stride 2, kernel 3, input 3: the full output is 7; output_shape 6 drops one row at the end (NOTSET)
        Tensor x = Tensor.ofFloats(new float[] {1, 2, 3}, 1, 1, 3);
        Tensor w = Tensor.ofFloats(new float[] {1, 1, 1}, 1, 1, 3);
        Tensor full = run1("ConvTranspose", 11, new Tensor[] {x, w}, intsAttr("strides", 2));
        assertArrayEquals(new float[] {1, 1, 3, 2, 5, 3, 3}, full.floats());
        Tensor shaped = run1("ConvTranspose", 11, new Tensor[] {x, w}, intsAttr("strides", 2),
                intsAttr("output_shape", 6));
        assertArrayEquals(new float[] {1, 3, 2, 5, 3, 3}, shaped.floats());
    }

    // ---------------------------------------------------------------- pooling

    @Test
    void maxPoolReturnsIndicesInBothStorageOrders() {
        Tensor x = Tensor.ofFloats(new float[] {1, 5, 2, 3, 4, 9, 0, 8, 7, 6, 2, 1}, 1, 1, 3, 4);
        List<Tensor> rowMajor = run("MaxPool", 12, new Tensor[] {x}, 2, new int[0], intsAttr("kernel_shape", 2, 2));
        assertArrayEquals(new long[] {1, 1, 2, 3}, rowMajor.get(0).shape());
        assertArrayEquals(new float[] {9, 9, 8, 9, 9, 8}, rowMajor.get(0).floats());
        assertArrayEquals(new long[] {5, 5, 7, 5, 5, 7}, rowMajor.get(1).longs());
        List<Tensor> colMajor = run("MaxPool", 12, new Tensor[] {x}, 2, new int[0], intsAttr("kernel_shape", 2, 2),
                intAttr("storage_order", 1));
        // element (h, w) is h + w * 3 in column-major order: 9 at (1, 1) is 4, 8 at (1, 3) is 10
        assertArrayEquals(new long[] {4, 4, 10, 4, 4, 10}, colMajor.get(1).longs());
    }

    @Test
    void maxPoolKeepsIntegerTypesAndCeilMode() {
        byte[] v = {1, (byte) 200, 3, 4, 5, 6, 7, 8, 9};
        Tensor x = Tensor.of(ElementType.UINT8, new long[] {1, 1, 3, 3}, v);
        Tensor y = run1("MaxPool", 12, new Tensor[] {x}, intsAttr("kernel_shape", 2, 2), intsAttr("strides", 2, 2),
                intAttr("ceil_mode", 1));
        assertEquals(ElementType.UINT8, y.type());
        assertArrayEquals(new long[] {1, 1, 2, 2}, y.shape());
        assertArrayEquals(new long[] {200, 6, 8, 9}, new long[] {y.getLong(0), y.getLong(1), y.getLong(2),
            y.getLong(3)});
    }

    @Test
    void averagePoolCountsPaddingOnlyWhenAsked() {
        Tensor x = Tensor.ofFloats(new float[] {1, 2, 3, 4}, 1, 1, 2, 2);
        Tensor excl = run1("AveragePool", 11, new Tensor[] {x}, intsAttr("kernel_shape", 2, 2),
                intsAttr("pads", 1, 1, 0, 0));
        assertArrayEquals(new float[] {1, 1.5f, 2, 2.5f}, excl.floats());
        Tensor incl = run1("AveragePool", 11, new Tensor[] {x}, intsAttr("kernel_shape", 2, 2),
                intsAttr("pads", 1, 1, 0, 0), intAttr("count_include_pad", 1));
        assertArrayEquals(new float[] {0.25f, 0.75f, 1, 2.5f}, incl.floats());
    }

    @Test
    void globalPoolsReduceAllSpatialAxes() {
        Tensor x = Tensor.ofFloats(new float[] {1, 2, 3, 4, -1, -2, -3, -4}, 1, 2, 2, 1, 2);
        Tensor avg = run1("GlobalAveragePool", 11, new Tensor[] {x});
        assertArrayEquals(new long[] {1, 2, 1, 1, 1}, avg.shape());
        assertArrayEquals(new float[] {2.5f, -2.5f}, avg.floats());
        assertArrayEquals(new float[] {4, -1}, run1("GlobalMaxPool", 11, new Tensor[] {x}).floats());
        Tensor lp = run1("GlobalLpPool", 11, new Tensor[] {Tensor.ofFloats(new float[] {3, 4}, 1, 1, 2)});
        assertArrayEquals(new float[] {5}, lp.floats());
    }

    // ---------------------------------------------------------------- Resize and Upsample

    @Test
    void resizeFollowsTheOpsetRules() {
        Tensor x = Tensor.ofFloats(new float[] {0, 4}, 1, 2);
        Tensor scales = Tensor.ofFloats(new float[] {1, 2}, 2);
        // opset 10: asymmetric coordinates o / 2 = 0, 0.5, 1, 1.5
        assertArrayEquals(new float[] {0, 2, 4, 4}, run1("Resize", 10, new Tensor[] {x, scales},
                stringAttr("mode", "linear")).floats());
        // opset 11: half_pixel (o + 0.5) / 2 - 0.5 = -0.25, 0.25, 0.75, 1.25, clamped to the edges
        Tensor roi = Tensor.ofFloats(new float[0], 0);
        assertArrayEquals(new float[] {0, 1, 3, 4}, run1("Resize", 11, new Tensor[] {x, roi, scales},
                stringAttr("mode", "linear")).floats());
        // opset 13, sizes only: x = (o + 0.5) * 0.6 - 0.5 = -0.2, 0.4, 1, 1.6, 2.2
        Tensor sizes = Tensor.ofLongs(new long[] {1, 5}, 2);
        Tensor x3 = Tensor.ofFloats(new float[] {1, 2, 3}, 1, 3);
        assertArrayEquals(new float[] {1, 1, 2, 3, 3}, run1("Resize", 13, new Tensor[] {x3, null, null, sizes})
                .floats());
        // the nearest modes differ at exact halves: asymmetric x = o / 2 with sizes 6
        Tensor six = Tensor.ofLongs(new long[] {1, 6}, 2);
        assertArrayEquals(new float[] {1, 2, 2, 3, 3, 3}, run1("Resize", 13, new Tensor[] {x3, null, null, six},
                stringAttr("coordinate_transformation_mode", "asymmetric"),
                stringAttr("nearest_mode", "round_prefer_ceil")).floats());
        assertArrayEquals(new float[] {1, 1, 2, 2, 3, 3}, run1("Resize", 13, new Tensor[] {x3, null, null, six},
                stringAttr("coordinate_transformation_mode", "asymmetric")).floats());
    }

    @Test
    void resizeLinearWithAxesAndCropExtrapolation() {
        Tensor x = Tensor.ofFloats(new float[] {0, 10, 20, 30}, 1, 2, 2);
        Tensor y = run1("Resize", 18, new Tensor[] {x, null, Tensor.ofFloats(new float[] {2}, 1)},
                stringAttr("mode", "linear"), intsAttr("axes", -1), stringAttr("coordinate_transformation_mode",
                        "align_corners"));
        assertArrayEquals(new long[] {1, 2, 4}, y.shape());
        assertClose(Tensor.ofFloats(new float[] {0, 10 / 3f, 20 / 3f, 10, 20, 70 / 3f, 80 / 3f, 30}, 1, 2, 4), y,
                1e-6);
        Tensor roi = Tensor.ofFloats(new float[] {0, 1.5f}, 2);
        Tensor c = run1("Resize", 18, new Tensor[] {x, roi, null, Tensor.ofLongs(new long[] {4}, 1)},
                stringAttr("mode", "linear"), intsAttr("axes", 2), stringAttr("coordinate_transformation_mode",
                        "tf_crop_and_resize"), floatAttr("extrapolation_value", -1f));
        // x_original = o * 1.5 / 3 = 0, 0.5, 1, 1.5 (outside)
        assertArrayEquals(new float[] {0, 5, 10, -1, 20, 25, 30, -1}, c.floats());
    }

    @Test
    void upsampleReadsScalesFromTheAttributeBeforeOpset9() {
        Tensor x = Tensor.ofFloats(new float[] {1, 2, 3, 4}, 1, 1, 2, 2);
        float[] expected = {1, 1, 2, 2, 1, 1, 2, 2, 3, 3, 4, 4, 3, 3, 4, 4};
        assertArrayEquals(expected, run1("Upsample", 7, new Tensor[] {x}, floatsAttr("scales", 1, 1, 2, 2))
                .floats());
        assertArrayEquals(expected, run1("Upsample", 9, new Tensor[] {x, Tensor.ofFloats(new float[] {1, 1, 2, 2},
            4)}).floats());
        Tensor lin = run1("Upsample", 9, new Tensor[] {Tensor.ofFloats(new float[] {0, 4}, 1, 2),
            Tensor.ofFloats(new float[] {1, 2}, 2)}, stringAttr("mode", "linear"));
        assertArrayEquals(new float[] {0, 2, 4, 4}, lin.floats());
    }

    // ---------------------------------------------------------------- Einsum, MaxUnpool, integer products

    @Test
    void einsumHandlesDiagonalsEllipsisAndImplicitOutput() {
        Tensor m = Tensor.ofFloats(new float[] {1, 2, 3, 4}, 2, 2);
        assertArrayEquals(new float[] {1, 4}, run1("Einsum", 12, new Tensor[] {m}, stringAttr("equation", "ii->i"))
                .floats());
        assertArrayEquals(new float[] {5}, run1("Einsum", 12, new Tensor[] {m}, stringAttr("equation", "ii"))
                .floats());
        // implicit output of "ij,jk" is "ik"
        Tensor a = random(2, 3);
        Tensor b = random(3, 4);
        assertClose(naiveMatMul(a, b), run1("Einsum", 12, new Tensor[] {a, b}, stringAttr("equation", "ij,jk")),
                1e-5);
        // ellipsis broadcast across operands: [2, 1, 3, 4] x [5, 4, 2] -> [2, 5, 3, 2]
        Tensor x = random(2, 1, 3, 4);
        Tensor y = random(5, 4, 2);
        Tensor e = run1("Einsum", 12, new Tensor[] {x, y}, stringAttr("equation", "...ij,...jk->...ik"));
        assertClose(naiveMatMul(x, y), e, 1e-5);
        Tensor li = run1("Einsum", 12, new Tensor[] {Tensor.ofLongs(new long[] {1, 2, 3}, 3),
            Tensor.ofLongs(new long[] {4, 5, 6}, 3)}, stringAttr("equation", "i,i"));
        assertArrayEquals(new long[] {32}, li.longs());
    }

    @Test
    void maxUnpoolInvertsMaxPool() {
        Tensor x = Tensor.ofFloats(new float[] {1, 5, 2, 3, 4, 9, 0, 8, 7, 6, 2, 1, 3, 3, 3, 3}, 1, 1, 4, 4);
        List<Tensor> pooled = run("MaxPool", 12, new Tensor[] {x}, 2, new int[0], intsAttr("kernel_shape", 2, 2),
                intsAttr("strides", 2, 2));
        Tensor up = run1("MaxUnpool", 11, new Tensor[] {pooled.get(0), pooled.get(1)}, intsAttr("kernel_shape", 2, 2),
                intsAttr("strides", 2, 2));
        assertArrayEquals(new long[] {1, 1, 4, 4}, up.shape());
        assertArrayEquals(new float[] {0, 0, 0, 0, 0, 9, 0, 8, 7, 0, 0, 0, 0, 0, 3, 0}, up.floats());
    }

    @Test
    void matMulIntegerSubtractsPerRowAndPerColumnZeroPoints() {
        Tensor a = Tensor.of(ElementType.UINT8, new long[] {2, 2}, new byte[] {(byte) 200, 10, 5, 7});
        Tensor b = Tensor.of(ElementType.INT8, new long[] {2, 2}, new byte[] {-3, 2, 4, -1});
        Tensor azp = Tensor.of(ElementType.UINT8, new long[] {2}, new byte[] {100, 5});
        Tensor bzp = Tensor.of(ElementType.INT8, new long[] {2}, new byte[] {1, 0});
        Tensor y = run1("MatMulInteger", 10, new Tensor[] {a, b, azp, bzp});
        assertEquals(ElementType.INT32, y.type());
        // A - zp by row: (100, -90), (0, 2); B - zp by column: (-4, 3), (2, -1)
        assertArrayEquals(new int[] {-670, 290, 6, -2}, y.ints());
    }
}
