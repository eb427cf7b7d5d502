package io.ortex.ep.cpu.ops.support;

import io.ortex.api.ElementType;
import io.ortex.api.NarrowFloats;
import io.ortex.api.Tensor;

/**
 * Moves values into and out of the narrow element types (the 8- and 4-bit floats and the 4- and 2-bit integers,
 * held one element per byte), for Cast and the quantization ops.
 */
public final class NarrowValues {
    private NarrowValues() {
    }

    /**
     * Tells whether a type is one of the narrow types this class handles.
     *
     * @param t the element type
     * @return true for the narrow floats and the narrow integers
     */
    public static boolean isNarrow(ElementType t) {
        return t.isNarrowFloat() || t.isNarrowInteger();
    }

    /**
     * Widens a narrow tensor to a type every kernel handles: narrow floats to float32 (exact), narrow integers to
     * int32.
     *
     * @param x a tensor of a narrow type
     * @return the widened tensor
     */
    public static Tensor widen(Tensor x) {
        byte[] b = x.bytes();
        int n = b.length;
        if (x.type().isNarrowFloat()) {
            float[] table = NarrowFloats.decodeTable(x.type());
            int mask = table.length - 1;
            float[] f = new float[n];
            for (int i = 0; i < n; i++) {
                f[i] = table[b[i] & mask];
            }
            return Tensor.ofFloats(f, x.shape());
        }
        int[] v = new int[n];
        for (int i = 0; i < n; i++) {
            v[i] = b[i];
        }
        return Tensor.ofInts(v, x.shape());
    }

    /**
     * Reads the elements of a tensor of a narrow float type as floats.
     *
     * @param x the tensor
     * @return new values
     */
    public static float[] floats(Tensor x) {
        return widen(x).floats();
    }

    /**
     * Encodes values as a narrow float type.
     *
     * @param type the narrow float type
     * @param shape the shape
     * @param v the values
     * @param saturate whether out-of-range values saturate (float8 and e8m0 targets)
     * @param rounding the rounding of a float8e8m0 target
     * @return the tensor
     */
    public static Tensor encodeFloats(ElementType type, long[] shape, float[] v, boolean saturate,
            NarrowFloats.E8M0Rounding rounding) {
        byte[] out = new byte[v.length];
        if (type == ElementType.FLOAT8E8M0) {
            for (int i = 0; i < v.length; i++) {
                out[i] = NarrowFloats.toFloat8E8M0(v[i], saturate, rounding);
            }
        } else {
            for (int i = 0; i < v.length; i++) {
                out[i] = NarrowFloats.fromDouble(type, v[i], saturate);
            }
        }
        return Tensor.of(type, shape, out);
    }

    /**
     * Encodes double values as a narrow float type.
     *
     * @param type the narrow float type
     * @param shape the shape
     * @param v the values
     * @param saturate whether out-of-range values saturate
     * @param rounding the rounding of a float8e8m0 target
     * @return the tensor
     */
    public static Tensor encodeDoubles(ElementType type, long[] shape, double[] v, boolean saturate,
            NarrowFloats.E8M0Rounding rounding) {
        byte[] out = new byte[v.length];
        for (int i = 0; i < v.length; i++) {
            out[i] = type == ElementType.FLOAT8E8M0 ? NarrowFloats.toFloat8E8M0(v[i], saturate, rounding)
                    : NarrowFloats.fromDouble(type, v[i], saturate);
        }
        return Tensor.of(type, shape, out);
    }

    /**
     * Makes a narrow integer tensor from long values, wrapping each to the type's width as a cast does.
     *
     * @param type int4, uint4, int2 or uint2
     * @param shape the shape
     * @param v the values
     * @return the tensor
     */
    public static Tensor wrapLongs(ElementType type, long[] shape, long[] v) {
        int shift = 64 - type.bitWidth();
        boolean signed = type.minValue() < 0;
        byte[] out = new byte[v.length];
        for (int i = 0; i < v.length; i++) {
            long w = v[i] << shift;
            out[i] = (byte) (signed ? w >> shift : w >>> shift);
        }
        return Tensor.of(type, shape, out);
    }
}
