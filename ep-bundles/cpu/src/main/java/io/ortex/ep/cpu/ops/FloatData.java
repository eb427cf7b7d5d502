package io.ortex.ep.cpu.ops;

import io.ortex.api.ElementType;
import io.ortex.api.HalfFloats;
import io.ortex.api.NotImplementedException;
import io.ortex.api.Tensor;

/**
 * Moves floating-point tensors in and out of plain {@code float[]} and {@code double[]} working arrays, for the
 * reduction and normalization kernels: float32 is used as is, float16 and bfloat16 widen to float, float64 keeps
 * its own array.
 */
final class FloatData {
    private FloatData() {
    }

    /**
     * Checks that a tensor has a floating-point element type.
     *
     * @param t the tensor
     * @param what what the tensor is, for the message (e.g. {@code "LayerNormalization input X"})
     * @throws NotImplementedException when the type is not float32, float64, float16 or bfloat16
     */
    static void requireFloating(Tensor t, String what) {
        if (!t.type().isFloatingPoint()) {
            throw new NotImplementedException(what + " has type " + t.type()
                    + "; only float32, float64, float16 and bfloat16 are supported");
        }
    }

    /**
     * Reads a float32, float16 or bfloat16 (or, rounding, float64) tensor as floats.
     *
     * @param t the tensor
     * @return its backing array for float32 (not to be modified), otherwise a new array
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
     * Reads any numeric tensor as doubles.
     *
     * @param t the tensor
     * @return its backing array for float64 (not to be modified), otherwise a new array
     */
    static double[] doubles(Tensor t) {
        if (t.type() == ElementType.DOUBLE) {
            return t.doubles();
        }
        if (t.type() == ElementType.FLOAT) {
            float[] f = t.floats();
            double[] d = new double[f.length];
            for (int i = 0; i < f.length; i++) {
                d[i] = f[i];
            }
            return d;
        }
        double[] d = new double[t.size()];
        for (int i = 0; i < d.length; i++) {
            d[i] = t.getDouble(i);
        }
        return d;
    }

    /**
     * Makes a float32, float16 or bfloat16 tensor from floats (float64 widens them).
     *
     * @param type the element type
     * @param shape the shape
     * @param v the values; owned by the float32 tensor returned
     * @return the tensor
     */
    static Tensor fromFloats(ElementType type, long[] shape, float[] v) {
        switch (type) {
            case FLOAT:
                return Tensor.of(type, shape, v);
            case FLOAT16: {
                short[] s = new short[v.length];
                for (int i = 0; i < v.length; i++) {
                    s[i] = HalfFloats.floatToFloat16(v[i]);
                }
                return Tensor.of(type, shape, s);
            }
            case BFLOAT16: {
                short[] s = new short[v.length];
                for (int i = 0; i < v.length; i++) {
                    s[i] = HalfFloats.floatToBfloat16(v[i]);
                }
                return Tensor.of(type, shape, s);
            }
            case DOUBLE: {
                double[] d = new double[v.length];
                for (int i = 0; i < v.length; i++) {
                    d[i] = v[i];
                }
                return Tensor.of(type, shape, d);
            }
            default:
                throw new NotImplementedException("cannot make a " + type + " tensor from floats");
        }
    }

    /**
     * Picks a chunk size for {@code parallelFor} so that each task handles about 32K elements.
     *
     * @param itemSize the elements handled per item
     * @return the minimum items per task
     */
    static int chunk(long itemSize) {
        return (int) Math.max(1, 32768 / Math.max(1, itemSize));
    }
}
