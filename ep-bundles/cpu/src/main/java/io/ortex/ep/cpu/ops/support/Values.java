package io.ortex.ep.cpu.ops.support;

import io.ortex.api.ElementType;
import io.ortex.api.HalfFloats;
import io.ortex.api.NotImplementedException;
import io.ortex.api.Tensor;

/**
 * Builds tensors of any numeric type from {@code long} or {@code double} results, for kernels that compute
 * uncommon types through a wide intermediate rather than a typed loop per type.
 */
public final class Values {
    private Values() {
    }

    /**
     * Makes a tensor of an integer or bool type from long values, wrapping to the type's width.
     *
     * @param type the element type
     * @param shape the shape
     * @param v the values
     * @return the tensor
     */
    public static Tensor fromLongs(ElementType type, long[] shape, long[] v) {
        int n = v.length;
        switch (type) {
            case INT64: case UINT64: return Tensor.of(type, shape, v);
            case INT32: case UINT32: {
                int[] a = new int[n];
                for (int i = 0; i < n; i++) {
                    a[i] = (int) v[i];
                }
                return Tensor.of(type, shape, a);
            }
            case INT16: case UINT16: {
                short[] a = new short[n];
                for (int i = 0; i < n; i++) {
                    a[i] = (short) v[i];
                }
                return Tensor.of(type, shape, a);
            }
            case INT8: case UINT8: {
                byte[] a = new byte[n];
                for (int i = 0; i < n; i++) {
                    a[i] = (byte) v[i];
                }
                return Tensor.of(type, shape, a);
            }
            case BOOL: {
                boolean[] a = new boolean[n];
                for (int i = 0; i < n; i++) {
                    a[i] = v[i] != 0;
                }
                return Tensor.of(type, shape, a);
            }
            default: {
                double[] d = new double[n];
                for (int i = 0; i < n; i++) {
                    d[i] = v[i];
                }
                return fromDoubles(type, shape, d);
            }
        }
    }

    /**
     * Makes a tensor of any numeric type from double values (integer types truncate towards zero).
     *
     * @param type the element type
     * @param shape the shape
     * @param v the values
     * @return the tensor
     */
    public static Tensor fromDoubles(ElementType type, long[] shape, double[] v) {
        int n = v.length;
        switch (type) {
            case DOUBLE: return Tensor.of(type, shape, v);
            case FLOAT: {
                float[] a = new float[n];
                for (int i = 0; i < n; i++) {
                    a[i] = (float) v[i];
                }
                return Tensor.of(type, shape, a);
            }
            case FLOAT16: case BFLOAT16: {
                short[] a = new short[n];
                for (int i = 0; i < n; i++) {
                    a[i] = type == ElementType.FLOAT16 ? HalfFloats.floatToFloat16((float) v[i])
                            : HalfFloats.floatToBfloat16((float) v[i]);
                }
                return Tensor.of(type, shape, a);
            }
            case STRING:
                throw new NotImplementedException("cannot make a string tensor from numbers");
            default: {
                long[] l = new long[n];
                for (int i = 0; i < n; i++) {
                    l[i] = (long) v[i];
                }
                return fromLongs(type, shape, l);
            }
        }
    }

    /**
     * Makes a tensor of a floating-point type from float values: float32 takes the array itself, float16 and
     * bfloat16 are rounded to their bits, float64 is widened.
     *
     * @param type a floating-point element type
     * @param shape the shape
     * @param v the values, owned by the result when {@code type} is float32
     * @return the tensor
     */
    public static Tensor fromFloats(ElementType type, long[] shape, float[] v) {
        int n = v.length;
        switch (type) {
            case FLOAT: return Tensor.of(type, shape, v);
            case FLOAT16: {
                short[] a = new short[n];
                for (int i = 0; i < n; i++) {
                    a[i] = HalfFloats.floatToFloat16(v[i]);
                }
                return Tensor.of(type, shape, a);
            }
            case BFLOAT16: {
                short[] a = new short[n];
                for (int i = 0; i < n; i++) {
                    a[i] = HalfFloats.floatToBfloat16(v[i]);
                }
                return Tensor.of(type, shape, a);
            }
            case DOUBLE: {
                double[] a = new double[n];
                for (int i = 0; i < n; i++) {
                    a[i] = v[i];
                }
                return Tensor.of(type, shape, a);
            }
            default:
                throw new NotImplementedException("cannot make a " + type + " tensor from float values");
        }
    }

    /**
     * Reads the elements of a float32, float16 or bfloat16 tensor as floats. A float32 tensor gives its own array,
     * which must not be modified; other types give a new array.
     *
     * @param t the tensor
     * @return the values
     * @throws NotImplementedException for other types
     */
    public static float[] toFloats(Tensor t) {
        switch (t.type()) {
            case FLOAT: return t.floats();
            case FLOAT16: case BFLOAT16: {
                short[] s = t.shorts();
                float[] f = new float[s.length];
                if (t.type() == ElementType.FLOAT16) {
                    for (int i = 0; i < s.length; i++) {
                        f[i] = HalfFloats.float16ToFloat(s[i]);
                    }
                } else {
                    for (int i = 0; i < s.length; i++) {
                        f[i] = HalfFloats.bfloat16ToFloat(s[i]);
                    }
                }
                return f;
            }
            default: {
                int n = t.size();
                float[] f = new float[n];
                for (int i = 0; i < n; i++) {
                    f[i] = (float) t.getDouble(i);
                }
                return f;
            }
        }
    }

    /**
     * Reads the elements of any numeric or bool tensor as doubles. A float64 tensor gives its own array, which
     * must not be modified.
     *
     * @param t the tensor
     * @return the values
     */
    public static double[] toDoubles(Tensor t) {
        if (t.type() == ElementType.DOUBLE) {
            return t.doubles();
        }
        int n = t.size();
        double[] d = new double[n];
        if (t.type() == ElementType.FLOAT) {
            float[] f = t.floats();
            for (int i = 0; i < n; i++) {
                d[i] = f[i];
            }
        } else {
            for (int i = 0; i < n; i++) {
                d[i] = t.getDouble(i);
            }
        }
        return d;
    }

    /**
     * Reads the elements of an integer or bool tensor as longs: signed types sign-extended, unsigned types
     * zero-extended, uint64 as its raw bits. An int64 or uint64 tensor gives its own array, which must not be
     * modified.
     *
     * @param t the tensor
     * @return the values
     */
    public static long[] toLongs(Tensor t) {
        if (t.type() == ElementType.INT64 || t.type() == ElementType.UINT64) {
            return t.longs();
        }
        int n = t.size();
        long[] l = new long[n];
        switch (t.type()) {
            case INT32: {
                int[] a = t.ints();
                for (int i = 0; i < n; i++) {
                    l[i] = a[i];
                }
                break;
            }
            case INT8: {
                byte[] a = t.bytes();
                for (int i = 0; i < n; i++) {
                    l[i] = a[i];
                }
                break;
            }
            default:
                for (int i = 0; i < n; i++) {
                    l[i] = t.getLong(i);
                }
        }
        return l;
    }
}
