package io.ortex.ep.cpu.ops.support;

import io.ortex.api.ElementType;
import io.ortex.api.Tensor;

/**
 * Working arrays for the computing loops: copies of any numeric tensor as fresh {@code double} or {@code long}
 * arrays, results in float brought back to the element type, and shape products.
 */
public final class WorkingArrays {
    private WorkingArrays() {
    }

    /**
     * Reads a tensor as doubles (always a new array).
     *
     * @param t the tensor
     * @return the values
     */
    public static double[] doubles(Tensor t) {
        double[] d = Values.toDoubles(t);
        return t.type() == ElementType.DOUBLE ? d.clone() : d;
    }

    /**
     * Reads a tensor as longs (always a new array).
     *
     * @param t the tensor
     * @return the values
     */
    public static long[] longs(Tensor t) {
        long[] l = Values.toLongs(t);
        return t.type() == ElementType.INT64 || t.type() == ElementType.UINT64 ? l.clone() : l;
    }

    /**
     * Makes a tensor of any numeric type from float results (integer types truncate towards zero).
     *
     * @param type the element type
     * @param shape the shape
     * @param v the values (owned by the result when the type is float32)
     * @return the tensor
     */
    public static Tensor fromFloats(ElementType type, long[] shape, float[] v) {
        if (type.isFloatingPoint()) {
            return Values.fromFloats(type, shape, v);
        }
        double[] d = new double[v.length];
        for (int i = 0; i < v.length; i++) {
            d[i] = v[i];
        }
        return Values.fromDoubles(type, shape, d);
    }

    /**
     * Tells whether a type is computed through float32 arrays (float32 itself and the 16-bit floats).
     *
     * @param type the element type
     * @return true for float32, float16 and bfloat16
     */
    public static boolean viaFloat(ElementType type) {
        return type == ElementType.FLOAT || type == ElementType.FLOAT16 || type == ElementType.BFLOAT16;
    }

    /**
     * Product of {@code shape[from..to)}.
     *
     * @param shape the dimensions
     * @param from the first axis
     * @param to one past the last axis
     * @return the product (1 for an empty range)
     */
    public static int product(long[] shape, int from, int to) {
        long p = 1;
        for (int i = from; i < to; i++) {
            p *= shape[i];
        }
        return Math.toIntExact(p);
    }
}
