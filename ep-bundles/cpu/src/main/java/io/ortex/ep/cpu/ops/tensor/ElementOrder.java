package io.ortex.ep.cpu.ops.tensor;

import io.ortex.api.ElementType;
import io.ortex.api.HalfFloats;
import io.ortex.api.Tensor;

/**
 * Orders the elements of a tensor by value, for TopK and Unique: a comparator over flat element indices and a
 * stable merge sort of index arrays (equal values keep their index order). Floats order as
 * {@link Double#compare} (NaN last) except that -0 equals +0; unsigned integers as unsigned, strings by {@link String#compareTo}.
 */
final class ElementOrder {
    /** Compares two flat element indices by the values they hold. */
    @FunctionalInterface
    interface IndexComparator {
        /**
         * Compares the values at two indices.
         *
         * @param a one index
         * @param b another index
         * @return negative, zero or positive as the value at {@code a} is less than, equal to or greater than
         *     the value at {@code b}
         */
        int compare(int a, int b);
    }

    private ElementOrder() {
    }

    /**
     * Makes the ascending value order of a tensor's elements.
     *
     * @param t the tensor
     * @return a comparator over its flat indices
     */
    static IndexComparator of(Tensor t) {
        ElementType type = t.type();
        switch (type) {
            case FLOAT: {
                float[] v = t.floats();
                return (a, b) -> floats(v[a], v[b]);
            }
            case DOUBLE: {
                double[] v = t.doubles();
                return (a, b) -> v[a] == v[b] ? 0 : Double.compare(v[a], v[b]);
            }
            case INT64: {
                long[] v = t.longs();
                return (a, b) -> Long.compare(v[a], v[b]);
            }
            case UINT64: {
                long[] v = t.longs();
                return (a, b) -> Long.compareUnsigned(v[a], v[b]);
            }
            case INT32: {
                int[] v = t.ints();
                return (a, b) -> Integer.compare(v[a], v[b]);
            }
            case UINT32: {
                int[] v = t.ints();
                return (a, b) -> Integer.compareUnsigned(v[a], v[b]);
            }
            case STRING: {
                String[] v = t.strings();
                return (a, b) -> v[a].compareTo(v[b]);
            }
            case BOOL: {
                boolean[] v = t.booleans();
                return (a, b) -> Boolean.compare(v[a], v[b]);
            }
            case FLOAT16: {
                short[] v = t.shorts();
                return (a, b) -> floats(HalfFloats.float16ToFloat(v[a]), HalfFloats.float16ToFloat(v[b]));
            }
            case BFLOAT16: {
                short[] v = t.shorts();
                return (a, b) -> floats(HalfFloats.bfloat16ToFloat(v[a]), HalfFloats.bfloat16ToFloat(v[b]));
            }
            default:
                // int8, uint8, int16, uint16: exact as long
                return (a, b) -> Long.compare(t.getLong(a), t.getLong(b));
        }
    }

    private static int floats(float a, float b) {
        return a == b ? 0 : Float.compare(a, b);
    }

    /**
     * Sorts an index array stably.
     *
     * @param idx the indices, sorted in place
     * @param from the first position
     * @param to one past the last position
     * @param cmp the order
     */
    static void sort(int[] idx, int from, int to, IndexComparator cmp) {
        int n = to - from;
        if (n < 2) {
            return;
        }
        int[] tmp = new int[n];
        mergeSort(idx, from, to, tmp, cmp);
    }

    private static void mergeSort(int[] a, int from, int to, int[] tmp, IndexComparator cmp) {
        int n = to - from;
        if (n <= 16) {
            for (int i = from + 1; i < to; i++) {
                int x = a[i];
                int j = i - 1;
                while (j >= from && cmp.compare(a[j], x) > 0) {
                    a[j + 1] = a[j];
                    j--;
                }
                a[j + 1] = x;
            }
            return;
        }
        int mid = (from + to) >>> 1;
        mergeSort(a, from, mid, tmp, cmp);
        mergeSort(a, mid, to, tmp, cmp);
        if (cmp.compare(a[mid - 1], a[mid]) <= 0) {
            return;
        }
        System.arraycopy(a, from, tmp, 0, n);
        int i = 0;
        int iEnd = mid - from;
        int j = iEnd;
        int k = from;
        while (i < iEnd && j < n) {
            a[k++] = cmp.compare(tmp[j], tmp[i]) < 0 ? tmp[j++] : tmp[i++];
        }
        while (i < iEnd) {
            a[k++] = tmp[i++];
        }
        while (j < n) {
            a[k++] = tmp[j++];
        }
    }
}
