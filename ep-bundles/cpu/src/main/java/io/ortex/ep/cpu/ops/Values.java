package io.ortex.ep.cpu.ops;

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
}
