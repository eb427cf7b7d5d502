package io.ortex.ep.cpu.ops.support;

import io.ortex.api.ElementType;
import java.lang.reflect.Array;
import java.util.Arrays;

/**
 * Type-generic element movement over the storage arrays of {@link io.ortex.api.Tensor}: one loop written out per
 * storage class (float[], double[], long[], int[], short[], byte[], boolean[], String[]) and
 * {@link System#arraycopy} for contiguous runs, so data movement never converts through a wider type.
 */
public final class ElementArrays {
    /** Runs at least this long are copied with {@link System#arraycopy}; shorter ones with a plain loop. */
    static final int ARRAYCOPY_MIN = 12;

    private ElementArrays() {
    }

    /**
     * Allocates a storage array; string arrays are filled with empty strings so that no element is null.
     *
     * @param type the element type
     * @param n the length
     * @return the array
     */
    /**
     * Allocates a storage array from the run's memory (see {@link io.ortex.api.spi.KernelContext#allocate}); the
     * runtime may recycle it once no value of the run holds it.
     *
     * @param type the element type
     * @param n the element count
     * @param ctx the run's context, or {@code null} for a heap array
     * @param zero whether the elements must be zero (strings empty); otherwise the caller writes every one
     * @return the array
     */
    public static Object allocate(ElementType type, int n, io.ortex.api.spi.KernelContext ctx, boolean zero) {
        if (type == ElementType.STRING || ctx == null) {
            return allocate(type, n);
        }
        return (zero ? ctx.allocate(type, n) : ctx.allocateUninitialized(type, n)).data();
    }

    /**
     * Allocates a new zero-filled storage array (strings empty) on the heap.
     *
     * @param type the element type
     * @param n the element count
     * @return the array
     */
    public static Object allocate(ElementType type, int n) {
        Object a = Array.newInstance(type.storage().getComponentType(), n);
        if (a instanceof String[]) {
            Arrays.fill((String[]) a, "");
        }
        return a;
    }

    /**
     * Copies rows: for each row {@code r} in {@code [from, to)} and {@code j < inner},
     * {@code dst[r * inner + j] = src[rowBase[r] + j * stride]}.
     *
     * @param src the source array
     * @param rowBase the source offset of each row
     * @param stride the source step within a row (may be 0 or negative)
     * @param inner the row length
     * @param dst the destination array, dense rows
     * @param from the first row
     * @param to one past the last row
     */
    public static void copyRows(Object src, int[] rowBase, int stride, int inner, Object dst, int from, int to) {
        if (stride == 1 && inner >= ARRAYCOPY_MIN) {
            for (int r = from; r < to; r++) {
                System.arraycopy(src, rowBase[r], dst, r * inner, inner);
            }
            return;
        }
        if (src instanceof float[]) {
            float[] s = (float[]) src;
            float[] d = (float[]) dst;
            for (int r = from; r < to; r++) {
                int o = r * inner;
                int b = rowBase[r];
                for (int j = 0; j < inner; j++) {
                    d[o + j] = s[b + j * stride];
                }
            }
        } else if (src instanceof double[]) {
            double[] s = (double[]) src;
            double[] d = (double[]) dst;
            for (int r = from; r < to; r++) {
                int o = r * inner;
                int b = rowBase[r];
                for (int j = 0; j < inner; j++) {
                    d[o + j] = s[b + j * stride];
                }
            }
        } else if (src instanceof long[]) {
            long[] s = (long[]) src;
            long[] d = (long[]) dst;
            for (int r = from; r < to; r++) {
                int o = r * inner;
                int b = rowBase[r];
                for (int j = 0; j < inner; j++) {
                    d[o + j] = s[b + j * stride];
                }
            }
        } else if (src instanceof int[]) {
            int[] s = (int[]) src;
            int[] d = (int[]) dst;
            for (int r = from; r < to; r++) {
                int o = r * inner;
                int b = rowBase[r];
                for (int j = 0; j < inner; j++) {
                    d[o + j] = s[b + j * stride];
                }
            }
        } else if (src instanceof short[]) {
            short[] s = (short[]) src;
            short[] d = (short[]) dst;
            for (int r = from; r < to; r++) {
                int o = r * inner;
                int b = rowBase[r];
                for (int j = 0; j < inner; j++) {
                    d[o + j] = s[b + j * stride];
                }
            }
        } else if (src instanceof byte[]) {
            byte[] s = (byte[]) src;
            byte[] d = (byte[]) dst;
            for (int r = from; r < to; r++) {
                int o = r * inner;
                int b = rowBase[r];
                for (int j = 0; j < inner; j++) {
                    d[o + j] = s[b + j * stride];
                }
            }
        } else if (src instanceof boolean[]) {
            boolean[] s = (boolean[]) src;
            boolean[] d = (boolean[]) dst;
            for (int r = from; r < to; r++) {
                int o = r * inner;
                int b = rowBase[r];
                for (int j = 0; j < inner; j++) {
                    d[o + j] = s[b + j * stride];
                }
            }
        } else {
            Object[] s = (Object[]) src;
            Object[] d = (Object[]) dst;
            for (int r = from; r < to; r++) {
                int o = r * inner;
                int b = rowBase[r];
                for (int j = 0; j < inner; j++) {
                    d[o + j] = s[b + j * stride];
                }
            }
        }
    }

    /**
     * Gathers single elements: {@code dst[i] = src[map[i]]} for every {@code i} of {@code map}.
     *
     * @param src the source array
     * @param map the source index of each destination element
     * @param dst the destination array, as long as {@code map}
     */
    public static void gather(Object src, int[] map, Object dst) {
        int n = map.length;
        if (src instanceof float[]) {
            float[] s = (float[]) src;
            float[] d = (float[]) dst;
            for (int i = 0; i < n; i++) {
                d[i] = s[map[i]];
            }
        } else if (src instanceof double[]) {
            double[] s = (double[]) src;
            double[] d = (double[]) dst;
            for (int i = 0; i < n; i++) {
                d[i] = s[map[i]];
            }
        } else if (src instanceof long[]) {
            long[] s = (long[]) src;
            long[] d = (long[]) dst;
            for (int i = 0; i < n; i++) {
                d[i] = s[map[i]];
            }
        } else if (src instanceof int[]) {
            int[] s = (int[]) src;
            int[] d = (int[]) dst;
            for (int i = 0; i < n; i++) {
                d[i] = s[map[i]];
            }
        } else if (src instanceof short[]) {
            short[] s = (short[]) src;
            short[] d = (short[]) dst;
            for (int i = 0; i < n; i++) {
                d[i] = s[map[i]];
            }
        } else if (src instanceof byte[]) {
            byte[] s = (byte[]) src;
            byte[] d = (byte[]) dst;
            for (int i = 0; i < n; i++) {
                d[i] = s[map[i]];
            }
        } else if (src instanceof boolean[]) {
            boolean[] s = (boolean[]) src;
            boolean[] d = (boolean[]) dst;
            for (int i = 0; i < n; i++) {
                d[i] = s[map[i]];
            }
        } else {
            Object[] s = (Object[]) src;
            Object[] d = (Object[]) dst;
            for (int i = 0; i < n; i++) {
                d[i] = s[map[i]];
            }
        }
    }

    /**
     * Fills a range of an array with one element of another array of the same class.
     *
     * @param dst the array to fill
     * @param from the first index
     * @param to one past the last index
     * @param src the array holding the value
     * @param srcIndex the value's index in {@code src}
     */
    public static void fill(Object dst, int from, int to, Object src, int srcIndex) {
        if (from >= to) {
            return;
        }
        if (dst instanceof float[]) {
            Arrays.fill((float[]) dst, from, to, ((float[]) src)[srcIndex]);
        } else if (dst instanceof double[]) {
            Arrays.fill((double[]) dst, from, to, ((double[]) src)[srcIndex]);
        } else if (dst instanceof long[]) {
            Arrays.fill((long[]) dst, from, to, ((long[]) src)[srcIndex]);
        } else if (dst instanceof int[]) {
            Arrays.fill((int[]) dst, from, to, ((int[]) src)[srcIndex]);
        } else if (dst instanceof short[]) {
            Arrays.fill((short[]) dst, from, to, ((short[]) src)[srcIndex]);
        } else if (dst instanceof byte[]) {
            Arrays.fill((byte[]) dst, from, to, ((byte[]) src)[srcIndex]);
        } else if (dst instanceof boolean[]) {
            Arrays.fill((boolean[]) dst, from, to, ((boolean[]) src)[srcIndex]);
        } else {
            Arrays.fill((Object[]) dst, from, to, ((Object[]) src)[srcIndex]);
        }
    }

    /**
     * Sets a range to the type's zero: 0, false or the empty string.
     *
     * @param dst the array
     * @param from the first index
     * @param to one past the last index
     */
    public static void clear(Object dst, int from, int to) {
        if (from >= to) {
            return;
        }
        if (dst instanceof float[]) {
            Arrays.fill((float[]) dst, from, to, 0f);
        } else if (dst instanceof double[]) {
            Arrays.fill((double[]) dst, from, to, 0.0);
        } else if (dst instanceof long[]) {
            Arrays.fill((long[]) dst, from, to, 0L);
        } else if (dst instanceof int[]) {
            Arrays.fill((int[]) dst, from, to, 0);
        } else if (dst instanceof short[]) {
            Arrays.fill((short[]) dst, from, to, (short) 0);
        } else if (dst instanceof byte[]) {
            Arrays.fill((byte[]) dst, from, to, (byte) 0);
        } else if (dst instanceof boolean[]) {
            Arrays.fill((boolean[]) dst, from, to, false);
        } else {
            Arrays.fill((Object[]) dst, from, to, "");
        }
    }

    /**
     * Copies a whole storage array.
     *
     * @param src the array
     * @return a copy of the same class
     */
    public static Object copyOf(Object src) {
        int n = Array.getLength(src);
        Object dst = Array.newInstance(src.getClass().getComponentType(), n);
        System.arraycopy(src, 0, dst, 0, n);
        return dst;
    }
}
