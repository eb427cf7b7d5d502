package io.ortex.serve.internal;

import io.ortex.api.ElementType;
import io.ortex.api.HalfFloats;
import io.ortex.api.Names;
import io.ortex.api.Tensor;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The elements of one input's JSON {@code data}, collected while parsing (before the datatype is necessarily known,
 * since JSON members come in any order) and then converted into a tensor of the declared datatype and shape, each
 * element checked against the datatype. Not thread safe.
 */
final class JsonValues {
    private static final byte INT = 0;
    private static final byte FLOAT = 1;
    private static final byte BOOL = 2;
    private static final byte STRING = 3;
    /** An integer beyond a long but within uint64: the bits are the uint64's. */
    private static final byte BIG = 4;
    /** An integer beyond uint64 (or below long): fits no datatype. */
    private static final byte HUGE = 5;

    private static final BigInteger UINT64_LIMIT = BigInteger.ONE.shiftLeft(64);

    private final long maxElements;
    private long[] values = new long[16];
    private byte[] kinds = new byte[16];
    private final List<String> strings = new ArrayList<>();
    private final List<String> hugeTexts = new ArrayList<>();
    private int size;

    /*
     * The add methods take the input's label for messages ("input 'x'", or "input #2" before its name is read).
     */

    /**
     * Creates an empty collection.
     *
     * @param maxElements the most elements one input may hold
     */
    JsonValues(long maxElements) {
        this.maxElements = maxElements;
    }

    int size() {
        return size;
    }

    void addLong(long v, String what) {
        add(v, INT, what);
    }

    void addBig(BigInteger v, String what) {
        if (v.signum() >= 0 && v.compareTo(UINT64_LIMIT) < 0) {
            add(v.longValue(), BIG, what);
        } else {
            hugeTexts.add(v.toString());
            add(hugeTexts.size() - 1, HUGE, what);
        }
    }

    void addDouble(double v, String what) {
        add(Double.doubleToRawLongBits(v), FLOAT, what);
    }

    void addBoolean(boolean v, String what) {
        add(v ? 1 : 0, BOOL, what);
    }

    void addString(String v, String what) {
        strings.add(v);
        add(strings.size() - 1, STRING, what);
    }

    private void add(long v, byte kind, String what) {
        if (size >= maxElements) {
            throw new ProtocolException(ProtocolException.TOO_LARGE, what
                    + ": data holds more than " + maxElements + " elements, the limit of one input");
        }
        if (size == values.length) {
            int grown = (int) Math.min(maxElements, (long) size * 2);
            values = Arrays.copyOf(values, grown);
            kinds = Arrays.copyOf(kinds, grown);
        }
        values[size] = v;
        kinds[size] = kind;
        size++;
    }

    /**
     * Builds the tensor, checking every element against the datatype.
     *
     * @param input the input's name, for messages
     * @param datatype the declared datatype
     * @param shape the declared shape, whose element count must equal {@link #size()}
     * @return the tensor
     * @throws ProtocolException (400) naming the input and the first element that does not fit
     */
    Tensor toTensor(String input, Datatype datatype, long[] shape) {
        ElementType type = datatype.elementType();
        Object data = switch (datatype) {
            case FP32 -> {
                float[] a = new float[size];
                for (int i = 0; i < size; i++) {
                    a[i] = (float) number(i, input, datatype);
                }
                yield a;
            }
            case FP64 -> {
                double[] a = new double[size];
                for (int i = 0; i < size; i++) {
                    a[i] = number(i, input, datatype);
                }
                yield a;
            }
            case FP16, BF16 -> {
                short[] a = new short[size];
                for (int i = 0; i < size; i++) {
                    float f = (float) number(i, input, datatype);
                    a[i] = datatype == Datatype.FP16 ? HalfFloats.floatToFloat16(f) : HalfFloats.floatToBfloat16(f);
                }
                yield a;
            }
            case BOOL -> {
                boolean[] a = new boolean[size];
                for (int i = 0; i < size; i++) {
                    if (kinds[i] != BOOL) {
                        throw mismatch(i, input, datatype);
                    }
                    a[i] = values[i] != 0;
                }
                yield a;
            }
            case BYTES -> {
                String[] a = new String[size];
                for (int i = 0; i < size; i++) {
                    if (kinds[i] != STRING) {
                        throw mismatch(i, input, datatype);
                    }
                    a[i] = strings.get((int) values[i]);
                }
                yield a;
            }
            case UINT64 -> {
                long[] a = new long[size];
                for (int i = 0; i < size; i++) {
                    if (kinds[i] == HUGE || kinds[i] == INT && values[i] < 0) {
                        throw outOfRange(i, input, datatype, type);
                    }
                    if (kinds[i] != INT && kinds[i] != BIG) {
                        throw mismatch(i, input, datatype);
                    }
                    a[i] = values[i];
                }
                yield a;
            }
            case INT64 -> {
                long[] a = new long[size];
                for (int i = 0; i < size; i++) {
                    a[i] = integer(i, input, datatype, type);
                }
                yield a;
            }
            case INT32, UINT32 -> {
                int[] a = new int[size];
                for (int i = 0; i < size; i++) {
                    a[i] = (int) integer(i, input, datatype, type);
                }
                yield a;
            }
            case INT16, UINT16 -> {
                short[] a = new short[size];
                for (int i = 0; i < size; i++) {
                    a[i] = (short) integer(i, input, datatype, type);
                }
                yield a;
            }
            case INT8, UINT8 -> {
                byte[] a = new byte[size];
                for (int i = 0; i < size; i++) {
                    a[i] = (byte) integer(i, input, datatype, type);
                }
                yield a;
            }
        };
        return Tensor.of(type, shape, data);
    }

    private double number(int i, String input, Datatype datatype) {
        return switch (kinds[i]) {
            case INT -> values[i];
            case FLOAT -> Double.longBitsToDouble(values[i]);
            case BIG -> new BigInteger(Long.toUnsignedString(values[i])).doubleValue();
            default -> throw mismatch(i, input, datatype);
        };
    }

    private long integer(int i, String input, Datatype datatype, ElementType type) {
        if (kinds[i] == BIG || kinds[i] == HUGE) {
            throw outOfRange(i, input, datatype, type);
        }
        if (kinds[i] != INT) {
            throw mismatch(i, input, datatype);
        }
        long v = values[i];
        if (v < type.minValue() || v > type.maxValue()) {
            throw outOfRange(i, input, datatype, type);
        }
        return v;
    }

    private ProtocolException outOfRange(int i, String input, Datatype datatype, ElementType type) {
        String range = datatype == Datatype.UINT64 ? "[0, 18446744073709551615]"
                : "[" + type.minValue() + ", " + type.maxValue() + "]";
        return ProtocolException.badRequest("input " + Names.quote(input) + ": element " + i + " (" + text(i)
                + ") is out of the range of " + datatype + " " + range);
    }

    private ProtocolException mismatch(int i, String input, Datatype datatype) {
        return ProtocolException.badRequest("input " + Names.quote(input) + ": element " + i + " (" + text(i)
                + ") is not a " + datatype + " value");
    }

    private String text(int i) {
        return switch (kinds[i]) {
            case INT -> Long.toString(values[i]);
            case FLOAT -> Double.toString(Double.longBitsToDouble(values[i]));
            case BOOL -> values[i] != 0 ? "true" : "false";
            case STRING -> "the string " + Names.quote(strings.get((int) values[i]));
            case BIG -> Long.toUnsignedString(values[i]);
            default -> hugeTexts.get((int) values[i]);
        };
    }
}
