package io.ortex.onnx;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ortex.api.ElementType;
import io.ortex.api.HalfFloats;
import io.ortex.api.Tensor;
import org.junit.jupiter.api.Test;

class TensorComparisonTest {
    private static String diff(Tensor e, Tensor a) {
        return TensorComparison.difference(e, a, 1e-3, 1e-5);
    }

    private static Tensor f(float... v) {
        return Tensor.ofFloats(v, v.length);
    }

    @Test
    void equalTensorsMatch() {
        assertNull(diff(f(1, 2, 3), f(1, 2, 3)));
        assertNull(diff(Tensor.ofStrings(new String[] {"a"}, 1), Tensor.ofStrings(new String[] {"a"}, 1)));
        assertNull(diff(Tensor.zeros(ElementType.INT8, 0, 3), Tensor.zeros(ElementType.INT8, 0, 3)));
        assertNull(diff(Tensor.ofFloats(new float[] {5}), Tensor.ofFloats(new float[] {5})));
    }

    @Test
    void missingOutputTypeAndShapeAreReported() {
        assertEquals("no output", diff(f(1), null));
        assertEquals("type float64, expected float32", diff(f(1), Tensor.ofDoubles(new double[] {1}, 1)));
        assertEquals("shape 1x2, expected 2", diff(f(1, 2), Tensor.ofFloats(new float[] {1, 2}, 1, 2)));
        assertEquals("shape scalar, expected 1", diff(f(1), Tensor.ofFloats(new float[] {1})));
    }

    @Test
    void toleranceIsAbsolutePlusRelative() {
        assertNull(diff(f(1000), f(1000.9f)), "within rtol * |expected|");
        assertTrue(diff(f(1000), f(1001.1f)).startsWith("1 of 1 elements differ; element 0"));
        assertNull(diff(f(0), f(9e-6f)), "within atol");
        assertTrue(diff(f(0), f(2e-5f)) != null);
        assertNull(TensorComparison.difference(f(1), f(1.4f), 0, 0.5));
    }

    @Test
    void reportCountsFirstAndLargestError() {
        String d = diff(f(1, 2, 3, 4), f(1, 2.5f, 3, 8));
        assertEquals("2 of 4 elements differ; element 1 is 2.5, expected 2.0 (largest error 4.0)", d);
    }

    @Test
    void nanAndInfinitiesFollowTheBackendRunner() {
        assertNull(diff(f(Float.NaN, Float.POSITIVE_INFINITY, Float.NEGATIVE_INFINITY),
                f(Float.NaN, Float.POSITIVE_INFINITY, Float.NEGATIVE_INFINITY)));
        assertTrue(diff(f(Float.NaN), f(1)).startsWith("1 of 1"));
        assertTrue(diff(f(1), f(Float.NaN)).startsWith("1 of 1"));
        assertTrue(diff(f(Float.POSITIVE_INFINITY), f(Float.NEGATIVE_INFINITY)).startsWith("1 of 1"));
        assertTrue(diff(f(Float.POSITIVE_INFINITY), f(Float.MAX_VALUE)).startsWith("1 of 1"));
    }

    @Test
    void integersAndStringsMustBeEqual() {
        assertEquals("element 1 is 3, expected 2",
                diff(Tensor.ofLongs(new long[] {1, 2}, 2), Tensor.ofLongs(new long[] {1, 3}, 2)));
        Tensor big = Tensor.of(ElementType.UINT64, new long[] {1}, new long[] {-1L});
        Tensor bigger = Tensor.of(ElementType.UINT64, new long[] {1}, new long[] {-2L});
        assertTrue(diff(big, bigger).startsWith("element 0"), "uint64 values above 2^63 are compared exactly");
        assertEquals("element 0 is 'b', expected 'a'",
                diff(Tensor.ofStrings(new String[] {"a"}, 1), Tensor.ofStrings(new String[] {"b"}, 1)));
        assertEquals("element 0 is 0, expected 1", diff(Tensor.ofBooleans(new boolean[] {true}, 1),
                Tensor.ofBooleans(new boolean[] {false}, 1)));
    }

    @Test
    void halfPrecisionIsComparedAsFloat() {
        Tensor e = Tensor.of(ElementType.FLOAT16, new long[] {1}, new short[] {HalfFloats.floatToFloat16(1f)});
        Tensor a = Tensor.of(ElementType.FLOAT16, new long[] {1}, new short[] {HalfFloats.floatToFloat16(1.0009766f)});
        assertNull(TensorComparison.difference(e, a, 1e-3, 1e-5));
        assertTrue(TensorComparison.difference(e, a, 0, 0) != null);
    }
}
