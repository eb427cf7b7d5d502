package io.ortex.ep.cpu.ops.math;

import static io.ortex.testing.Attributes.attr;
import static io.ortex.testing.OneNodeModel.run1;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ortex.api.ElementType;
import io.ortex.api.HalfFloats;
import io.ortex.api.InvalidArgumentException;
import io.ortex.api.NotImplementedException;
import io.ortex.api.OrtexException;
import io.ortex.api.Tensor;
import io.ortex.api.spi.KernelContext;
import io.ortex.ep.cpu.KernelHarness;
import org.junit.jupiter.api.Test;

/** Unit tests of the element-wise math ops (arithmetic, unary, Clip, comparisons, logic), on one-node models. */
class ElementwiseOpsTest {

    private static Tensor[] in(Tensor... t) {
        return t;
    }

    private static Tensor f32(float[] v, long... shape) {
        return Tensor.ofFloats(v, shape);
    }

    private static void assertClose(float[] expected, float[] actual, float tol) {
        assertEquals(expected.length, actual.length, "length");
        for (int i = 0; i < expected.length; i++) {
            assertEquals(expected[i], actual[i], tol, "element " + i);
        }
    }

    // ---------------------------------------------------------------- arithmetic

    @Test
    void addBroadcastsAgainstANaiveLoop() {
        float[] a = new float[2 * 1 * 3];
        float[] b = new float[4 * 1];
        for (int i = 0; i < a.length; i++) {
            a[i] = i * 1.5f;
        }
        for (int i = 0; i < b.length; i++) {
            b[i] = 100 * i;
        }
        Tensor y = run1("Sub", 14, in(f32(a, 2, 1, 3), f32(b, 4, 1)));
        assertArrayEquals(new long[] {2, 4, 3}, y.shape());
        float[] expected = new float[24];
        for (int i = 0; i < 2; i++) {
            for (int j = 0; j < 4; j++) {
                for (int k = 0; k < 3; k++) {
                    expected[(i * 4 + j) * 3 + k] = a[i * 3 + k] - b[j];
                }
            }
        }
        assertArrayEquals(expected, y.floats());
    }

    @Test
    void scalarAndZeroSizedShapes() {
        Tensor y = run1("Mul", 14, in(f32(new float[] {3f}), f32(new float[] {1, 2, 3}, 3)));
        assertArrayEquals(new float[] {3, 6, 9}, y.floats());
        Tensor z = run1("Add", 14, in(f32(new float[0], 0, 3), f32(new float[] {1, 2, 3}, 3)));
        assertArrayEquals(new long[] {0, 3}, z.shape());
        Tensor s = run1("Add", 14, in(f32(new float[] {1f}), f32(new float[] {2f})));
        assertEquals(0, s.rank());
        assertEquals(3f, s.floats()[0]);
    }

    @Test
    void broadcastWalkSplitsRowsAcrossThreadsCorrectly() {
        KernelContext chunked = new KernelContext() {
            @Override
            public int intraOpThreads() {
                return 4;
            }

            @Override
            public void parallelFor(int count, int minChunk, RangeBody body) {
                for (int from = 0; from < count; from += minChunk) {
                    body.run(from, Math.min(count, from + minChunk));
                }
            }
        };
        int rows = 64;
        int cols = 1000;
        float[] a = new float[rows * cols];
        float[] b = new float[rows];
        for (int i = 0; i < a.length; i++) {
            a[i] = i;
        }
        for (int i = 0; i < rows; i++) {
            b[i] = -i;
        }
        float[] y = FloatBinary.apply(BinaryOp.ADD, a, new long[] {rows, cols}, b, new long[] {rows, 1},
                new long[] {rows, cols}, chunked);
        for (int r = 0; r < rows; r++) {
            for (int c = 0; c < cols; c++) {
                assertEquals(r * cols + c - r, y[r * cols + c], 0f);
            }
        }
    }

    @Test
    void integerDivisionTruncatesAndUint64DividesUnsigned() {
        Tensor q = run1("Div", 14, in(Tensor.ofInts(new int[] {7, -7, 7}, 3), Tensor.ofInts(new int[] {2, 2, -2},
                3)));
        assertArrayEquals(new int[] {3, -3, -3}, q.ints());
        long big = -2L; // 2^64 - 2 as uint64
        Tensor u = run1("Div", 14, in(Tensor.of(ElementType.UINT64, new long[] {1}, new long[] {big}),
                Tensor.of(ElementType.UINT64, new long[] {1}, new long[] {2})));
        assertEquals(Long.MAX_VALUE, u.longs()[0]);
        assertThrows(OrtexException.class, () -> run1("Div", 14, in(Tensor.ofInts(new int[] {1}, 1),
                Tensor.ofInts(new int[] {0}, 1))));
    }

    @Test
    void uint8ArithmeticWraps() {
        Tensor y = run1("Add", 14, in(Tensor.of(ElementType.UINT8, new long[] {2}, new byte[] {(byte) 250, 1}),
                Tensor.of(ElementType.UINT8, new long[] {2}, new byte[] {10, 2})));
        assertArrayEquals(new byte[] {4, 3}, y.bytes());
    }

    @Test
    void float16AddComputesThroughFloat() {
        short[] a = {HalfFloats.floatToFloat16(1.5f), HalfFloats.floatToFloat16(-2f)};
        short[] b = {HalfFloats.floatToFloat16(0.25f)};
        Tensor y = run1("Add", 14, in(Tensor.of(ElementType.FLOAT16, new long[] {2}, a),
                Tensor.of(ElementType.FLOAT16, new long[] {1}, b)));
        assertEquals(ElementType.FLOAT16, y.type());
        assertEquals(1.75f, HalfFloats.float16ToFloat(y.shorts()[0]));
        assertEquals(-1.75f, HalfFloats.float16ToFloat(y.shorts()[1]));
    }

    @Test
    void powMixesBaseAndExponentTypes() {
        Tensor y = run1("Pow", 15, in(f32(new float[] {2, 3, 4}, 3), Tensor.ofLongs(new long[] {3}, 1)));
        assertArrayEquals(new float[] {8, 27, 64}, y.floats());
        Tensor z = run1("Pow", 15, in(Tensor.ofInts(new int[] {2, 3}, 2), f32(new float[] {0.5f, 2f}, 2)));
        assertArrayEquals(new int[] {1, 9}, z.ints());
        Tensor sq = run1("Pow", 15, in(f32(new float[] {-3, 0.5f}, 2), f32(new float[] {2f})));
        assertArrayEquals(new float[] {9, 0.25f}, sq.floats());
    }

    @Test
    void modFollowsTheDivisorUnlessFmod() {
        Tensor a = Tensor.ofInts(new int[] {-4, 7, 5, -3}, 4);
        Tensor b = Tensor.ofInts(new int[] {3, -3, 3, -2}, 4);
        assertArrayEquals(new int[] {2, -2, 2, -1}, run1("Mod", 13, in(a, b)).ints());
        assertArrayEquals(new int[] {-1, 1, 2, -1}, run1("Mod", 13, in(a, b), attr("fmod", 1)).ints());
        Tensor f = run1("Mod", 13, in(f32(new float[] {-4.5f, 7f}, 2), f32(new float[] {2f, -3f}, 2)),
                attr("fmod", 1));
        assertArrayEquals(new float[] {-0.5f, 1f}, f.floats());
        assertThrows(OrtexException.class, () -> run1("Mod", 13, in(f32(new float[] {1}, 1),
                f32(new float[] {1}, 1))));
    }

    @Test
    void variadicMaxMinSumMeanBroadcast() {
        Tensor a = f32(new float[] {1, 5, 3}, 3);
        Tensor b = f32(new float[] {2, 2, 2, 4, 4, 4}, 2, 3);
        Tensor c = f32(new float[] {0}, 1);
        assertArrayEquals(new float[] {2, 5, 3, 4, 5, 4}, run1("Max", 13, in(a, b, c)).floats());
        assertArrayEquals(new float[] {0, 0, 0, 0, 0, 0}, run1("Min", 13, in(a, b, c)).floats());
        assertArrayEquals(new float[] {3, 7, 5, 5, 9, 7}, run1("Sum", 13, in(a, b, c)).floats());
        assertClose(new float[] {1, 7f / 3, 5f / 3, 5f / 3, 3, 7f / 3}, run1("Mean", 13, in(a, b, c)).floats(),
                1e-6f);
        Tensor u = run1("Max", 13, in(Tensor.of(ElementType.UINT64, new long[] {1}, new long[] {-1L}),
                Tensor.of(ElementType.UINT64, new long[] {1}, new long[] {5})));
        assertEquals(-1L, u.longs()[0]);
    }

    @Test
    void preluBroadcastsTheSlope() {
        Tensor y = run1("PRelu", 16, in(f32(new float[] {-1, 2, -3, 4}, 2, 2), f32(new float[] {0.5f, 0.25f}, 2)));
        assertArrayEquals(new float[] {-0.5f, 2, -1.5f, 4}, y.floats());
    }

    // ---------------------------------------------------------------- unary

    @Test
    void unaryMathMatchesReferenceValues() {
        Tensor x = f32(new float[] {-2.5f, -0.5f, 0.5f, 1.5f, 2.5f}, 5);
        assertArrayEquals(new float[] {-2, -0f, 0, 2, 2}, run1("Round", 11, in(x)).floats());
        assertArrayEquals(new float[] {-1, -1, 1, 1, 1}, run1("Sign", 13, in(x)).floats());
        assertArrayEquals(new float[] {0, 0, 0.5f, 1.5f, 2.5f}, run1("Relu", 14, in(x)).floats());
        // erf reference values from tables: erf(0.5) = 0.5204998778, erf(1.5) = 0.9661051465, erf(2.5) = 0.9995930480
        assertClose(new float[] {-0.999593048f, -0.5204998778f, 0.5204998778f, 0.9661051465f, 0.999593048f},
                run1("Erf", 13, in(x)).floats(), 2e-7f);
        assertClose(new float[] {-0.0150843f, -0.154286f, 0.345714f, 1.3995716f, 2.4849157f},
                run1("Gelu", 20, in(x), attr("approximate", "tanh")).floats(), 2e-6f);
        assertClose(new float[] {-0.0155242f, -0.1542688f, 0.3457312f, 1.3997892f, 2.4844758f},
                run1("Gelu", 20, in(x)).floats(), 2e-6f);
        assertClose(new float[] {-0.2083333f, -0.2083333f, 0.2916667f, 1.125f, 2.2916667f},
                run1("HardSwish", 14, in(x)).floats(),
                1e-6f);
        assertClose(new float[] {-0.025f, -0.005f, 0.5f, 1.5f, 2.5f},
                run1("LeakyRelu", 16, in(x), attr("alpha", 0.01f)).floats(), 1e-7f);
    }

    @Test
    void unaryOnIntegersAndDoubles() {
        Tensor i8 = Tensor.of(ElementType.INT8, new long[] {3}, new byte[] {-5, 0, 7});
        assertArrayEquals(new byte[] {0, 0, 7}, run1("Relu", 14, in(i8)).bytes());
        assertArrayEquals(new byte[] {5, 0, 7}, run1("Abs", 13, in(i8)).bytes());
        assertArrayEquals(new byte[] {-1, 0, 1}, run1("Sign", 13, in(i8)).bytes());
        Tensor d = Tensor.ofDoubles(new double[] {0.25, 4}, 2);
        assertArrayEquals(new double[] {0.5, 2}, run1("Sqrt", 13, in(d)).doubles());
        assertThrows(OrtexException.class, () -> run1("Sqrt", 13, in(Tensor.ofInts(new int[] {4}, 1))));
    }

    @Test
    void isInfHonoursDetectFlagsAndIsNanFindsNan() {
        Tensor x = f32(new float[] {Float.NEGATIVE_INFINITY, Float.POSITIVE_INFINITY, Float.NaN, 1}, 4);
        assertArrayEquals(new boolean[] {false, true, false, false},
                run1("IsInf", 20, in(x), attr("detect_negative", 0)).booleans());
        assertArrayEquals(new boolean[] {true, true, false, false}, run1("IsInf", 20, in(x)).booleans());
        assertArrayEquals(new boolean[] {false, false, true, false}, run1("IsNaN", 20, in(x)).booleans());
    }

    // ---------------------------------------------------------------- clip

    @Test
    void clipUsesAttributesBeforeOpset11AndInputsAfter() {
        Tensor x = f32(new float[] {-3, 0, 3}, 3);
        assertArrayEquals(new float[] {-1, 0, 2},
                run1("Clip", 6, in(x), attr("min", -1f), attr("max", 2f)).floats());
        assertArrayEquals(new float[] {-3, 0, 2}, run1("Clip", 6, in(x), attr("max", 2f)).floats());
        assertArrayEquals(new float[] {-3, 0, 1},
                run1("Clip", 13, in(x, null, f32(new float[] {1f}))).floats());
        assertArrayEquals(new float[] {-1, 0, 3}, run1("Clip", 13, in(x, f32(new float[] {-1f}))).floats());
        Tensor i8 = Tensor.of(ElementType.INT8, new long[] {3}, new byte[] {-100, 5, 100});
        Tensor lo = Tensor.of(ElementType.INT8, new long[0], new byte[] {-10});
        Tensor hi = Tensor.of(ElementType.INT8, new long[0], new byte[] {10});
        assertArrayEquals(new byte[] {-10, 5, 10}, run1("Clip", 13, in(i8, lo, hi)).bytes());
    }

    // ---------------------------------------------------------------- comparison, logic, where

    @Test
    void comparisonsBroadcastAndHandleUnsignedAndStrings() {
        Tensor a = f32(new float[] {1, 2, 3, 4}, 2, 2);
        Tensor b = f32(new float[] {2, 3}, 2);
        assertArrayEquals(new boolean[] {true, true, false, false}, run1("Less", 13, in(a, b)).booleans());
        assertArrayEquals(new boolean[] {false, false, true, true},
                run1("GreaterOrEqual", 16, in(a, b)).booleans());
        Tensor u = Tensor.of(ElementType.UINT64, new long[] {1}, new long[] {-1L});
        Tensor one = Tensor.of(ElementType.UINT64, new long[] {1}, new long[] {1});
        assertTrue(run1("Greater", 13, in(u, one)).booleans()[0]);
        Tensor s = Tensor.ofStrings(new String[] {"a", "b"}, 2);
        Tensor t = Tensor.ofStrings(new String[] {"b"}, 1);
        assertArrayEquals(new boolean[] {false, true}, run1("Equal", 19, in(s, t)).booleans());
        Tensor p = Tensor.ofBooleans(new boolean[] {true, false}, 2);
        Tensor q = Tensor.ofBooleans(new boolean[] {true}, 1);
        assertArrayEquals(new boolean[] {true, false}, run1("And", 7, in(p, q)).booleans());
        assertArrayEquals(new boolean[] {false, true}, run1("Xor", 7, in(p, q)).booleans());
        assertArrayEquals(new boolean[] {false, true}, run1("Not", 1, in(p)).booleans());
    }

    // ---------------------------------------------------------------- bitwise

    @Test
    void bitShiftAndBitwiseOps() {
        Tensor x = Tensor.of(ElementType.UINT8, new long[] {3}, new byte[] {(byte) 0x81, 16, 1});
        Tensor s = Tensor.of(ElementType.UINT8, new long[] {3}, new byte[] {1, 2, 8});
        assertArrayEquals(new byte[] {2, 64, 0}, run1("BitShift", 11, in(x, s), attr("direction", "LEFT"))
                .bytes());
        assertArrayEquals(new byte[] {0x40, 4, 0}, run1("BitShift", 11, in(x, s),
                attr("direction", "RIGHT")).bytes());
        Tensor a = Tensor.ofInts(new int[] {0b1100}, 1);
        Tensor b = Tensor.ofInts(new int[] {0b1010}, 1);
        assertEquals(0b1000, run1("BitwiseAnd", 18, in(a, b)).ints()[0]);
        assertEquals(0b1110, run1("BitwiseOr", 18, in(a, b)).ints()[0]);
        assertEquals(0b0110, run1("BitwiseXor", 18, in(a, b)).ints()[0]);
        assertEquals(~0b1100, run1("BitwiseNot", 18, in(a)).ints()[0]);
    }

    @Test
    void mismatchedTypesAreRejected() {
        assertThrows(InvalidArgumentException.class, () -> BinaryKernels.apply("Add", BinaryOp.ADD,
                f32(new float[] {1}, 1), Tensor.ofInts(new int[] {1}, 1), KernelHarness.SEQUENTIAL));
        assertThrows(NotImplementedException.class, () -> BinaryKernels.apply("BitwiseAnd", BinaryOp.AND,
                f32(new float[] {1}, 1), f32(new float[] {1}, 1), KernelHarness.SEQUENTIAL));
    }
}
