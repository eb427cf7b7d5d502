package io.ortex.ep.cpu.ops.math;

import static io.ortex.ep.cpu.KernelHarness.runParallel;
import static io.ortex.ep.cpu.TensorChecks.assertClose;
import static io.ortex.ep.cpu.TensorChecks.toDouble;
import static io.ortex.testing.Attributes.attr;
import static io.ortex.testing.OneNodeModel.run;
import static io.ortex.testing.OneNodeModel.run1;
import static io.ortex.testing.RandomFloats.uniform;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.ortex.api.ElementType;
import io.ortex.api.HalfFloats;
import io.ortex.api.OrtexException;
import io.ortex.api.Tensor;
import io.ortex.ep.cpu.ops.support.Broadcast;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** Unit tests of MatMul, Gemm and Einsum against naive products, threaded and sequential. */
class MatrixProductTest {
    private static final Random RANDOM = new Random(42);

    private static Tensor random(long... shape) {
        return uniform(RANDOM, shape);
    }

    /** Naive batched product of float tensors, in double, with NumPy matmul broadcasting. */
    private static Tensor naiveMatMul(Tensor a, Tensor b) {
        MatMulKernel.Dims d = MatMulKernel.dims(a.shape(), b.shape());
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
        Tensor y = run("Gemm", 13, new Tensor[] {a, b, c}, 1, new int[] {1}, attr("transA", 1),
                attr("transB", 1), attr("alpha", 0.5f), attr("beta", 2f)).get(0);
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

    @Test
    void einsumHandlesDiagonalsEllipsisAndImplicitOutput() {
        Tensor m = Tensor.ofFloats(new float[] {1, 2, 3, 4}, 2, 2);
        assertArrayEquals(new float[] {1, 4}, run1("Einsum", 12, new Tensor[] {m}, attr("equation", "ii->i"))
                .floats());
        assertArrayEquals(new float[] {5}, run1("Einsum", 12, new Tensor[] {m}, attr("equation", "ii"))
                .floats());
        // implicit output of "ij,jk" is "ik"
        Tensor a = random(2, 3);
        Tensor b = random(3, 4);
        assertClose(naiveMatMul(a, b), run1("Einsum", 12, new Tensor[] {a, b}, attr("equation", "ij,jk")),
                1e-5);
        // ellipsis broadcast across operands: [2, 1, 3, 4] x [5, 4, 2] -> [2, 5, 3, 2]
        Tensor x = random(2, 1, 3, 4);
        Tensor y = random(5, 4, 2);
        Tensor e = run1("Einsum", 12, new Tensor[] {x, y}, attr("equation", "...ij,...jk->...ik"));
        assertClose(naiveMatMul(x, y), e, 1e-5);
        Tensor li = run1("Einsum", 12, new Tensor[] {Tensor.ofLongs(new long[] {1, 2, 3}, 3),
            Tensor.ofLongs(new long[] {4, 5, 6}, 3)}, attr("equation", "i,i"));
        assertArrayEquals(new long[] {32}, li.longs());
    }
}
