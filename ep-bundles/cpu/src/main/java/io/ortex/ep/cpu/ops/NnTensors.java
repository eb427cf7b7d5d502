package io.ortex.ep.cpu.ops;

import io.ortex.api.ElementType;
import io.ortex.api.HalfFloats;
import io.ortex.api.Tensor;

/**
 * Conversions used by the neural-network kernels: widening any numeric tensor to {@code float}, {@code double} or
 * {@code long} arrays for the computing loops, and narrowing results back to the element type.
 */
final class NnTensors {
    private NnTensors() {
    }

    /**
     * Reads a tensor as floats; the array of a float32 tensor is returned as is and must not be modified.
     *
     * @param t the tensor
     * @return the values
     */
    static float[] floats(Tensor t) {
        switch (t.type()) {
            case FLOAT:
                return t.floats();
            case FLOAT16: {
                short[] s = t.shorts();
                float[] f = new float[s.length];
                for (int i = 0; i < s.length; i++) {
                    f[i] = HalfFloats.float16ToFloat(s[i]);
                }
                return f;
            }
            case BFLOAT16: {
                short[] s = t.shorts();
                float[] f = new float[s.length];
                for (int i = 0; i < s.length; i++) {
                    f[i] = HalfFloats.bfloat16ToFloat(s[i]);
                }
                return f;
            }
            default: {
                float[] f = new float[t.size()];
                for (int i = 0; i < f.length; i++) {
                    f[i] = (float) t.getDouble(i);
                }
                return f;
            }
        }
    }

    /**
     * Reads a tensor as doubles (always a new array).
     *
     * @param t the tensor
     * @return the values
     */
    static double[] doubles(Tensor t) {
        if (t.type() == ElementType.DOUBLE) {
            return t.doubles().clone();
        }
        double[] d = new double[t.size()];
        for (int i = 0; i < d.length; i++) {
            d[i] = t.getDouble(i);
        }
        return d;
    }

    /**
     * Reads a tensor as longs (always a new array).
     *
     * @param t the tensor
     * @return the values
     */
    static long[] longs(Tensor t) {
        long[] l = new long[t.size()];
        for (int i = 0; i < l.length; i++) {
            l[i] = t.getLong(i);
        }
        return l;
    }

    /**
     * Makes a tensor of any numeric type from float results (integer types truncate towards zero).
     *
     * @param type the element type
     * @param shape the shape
     * @param v the values (owned by the result when the type is float32)
     * @return the tensor
     */
    static Tensor fromFloats(ElementType type, long[] shape, float[] v) {
        switch (type) {
            case FLOAT:
                return Tensor.of(type, shape, v);
            case FLOAT16: case BFLOAT16: {
                short[] s = new short[v.length];
                boolean half = type == ElementType.FLOAT16;
                for (int i = 0; i < v.length; i++) {
                    s[i] = half ? HalfFloats.floatToFloat16(v[i]) : HalfFloats.floatToBfloat16(v[i]);
                }
                return Tensor.of(type, shape, s);
            }
            default: {
                double[] d = new double[v.length];
                for (int i = 0; i < v.length; i++) {
                    d[i] = v[i];
                }
                return Values.fromDoubles(type, shape, d);
            }
        }
    }

    /**
     * Tells whether a type is computed through float32 arrays (float32 itself and the 16-bit floats).
     *
     * @param type the element type
     * @return true for float32, float16 and bfloat16
     */
    static boolean viaFloat(ElementType type) {
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
    static int product(long[] shape, int from, int to) {
        long p = 1;
        for (int i = from; i < to; i++) {
            p *= shape[i];
        }
        return Math.toIntExact(p);
    }
}
