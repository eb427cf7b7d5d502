package io.ortex.api;

/**
 * The element types of ONNX tensors, with their {@code TensorProto.DataType} numbers.
 *
 * <p>Each supported type maps to one Java array class that stores its elements ({@link #storage()}): unsigned
 * types share the array of the signed type of the same width and are read as unsigned, and {@code float16} and
 * {@code bfloat16} are kept as raw 16-bit patterns in a {@code short[]}.
 *
 * <p>The 8-bit float types and the 4- and 2-bit types are held in a {@code byte[]} with <em>one element per
 * byte</em> in memory, whatever their packing in files:
 * <ul>
 *   <li>{@code float8e4m3fn}, {@code float8e4m3fnuz}, {@code float8e5m2}, {@code float8e5m2fnuz} and
 *       {@code float8e8m0}: the element's 8-bit pattern;</li>
 *   <li>{@code float4e2m1}: the 4-bit pattern in the low nibble, the high nibble zero;</li>
 *   <li>{@code int4} and {@code int2}: the value, sign-extended ({@code -8..7}, {@code -2..1});</li>
 *   <li>{@code uint4} and {@code uint2}: the value ({@code 0..15}, {@code 0..3}).</li>
 * </ul>
 * Code that makes such tensors must keep to these ranges. {@link NarrowFloats} converts the float patterns, and
 * {@link Tensor#getDouble} and {@link Tensor#getLong} read every type as a number. Serialized tensors pack the
 * sub-byte types ({@link #bitWidth()}); the ONNX codec packs and unpacks them. The complex types are listed so
 * that models naming them get a clear error; {@link #isSupported()} is false for them.
 */
public enum ElementType {
    /** 32-bit IEEE float. */
    FLOAT(1, "float32", 4, float[].class),
    /** Unsigned 8-bit integer. */
    UINT8(2, "uint8", 1, byte[].class),
    /** Signed 8-bit integer. */
    INT8(3, "int8", 1, byte[].class),
    /** Unsigned 16-bit integer. */
    UINT16(4, "uint16", 2, short[].class),
    /** Signed 16-bit integer. */
    INT16(5, "int16", 2, short[].class),
    /** Signed 32-bit integer. */
    INT32(6, "int32", 4, int[].class),
    /** Signed 64-bit integer. */
    INT64(7, "int64", 8, long[].class),
    /** UTF-8 string. */
    STRING(8, "string", 0, String[].class),
    /** Boolean. */
    BOOL(9, "bool", 1, boolean[].class),
    /** IEEE 754 half precision, stored as raw bits. */
    FLOAT16(10, "float16", 2, short[].class),
    /** 64-bit IEEE float. */
    DOUBLE(11, "float64", 8, double[].class),
    /** Unsigned 32-bit integer. */
    UINT32(12, "uint32", 4, int[].class),
    /** Unsigned 64-bit integer. */
    UINT64(13, "uint64", 8, long[].class),
    /** Complex of two float32 (not supported). */
    COMPLEX64(14, "complex64", 8, null),
    /** Complex of two float64 (not supported). */
    COMPLEX128(15, "complex128", 16, null),
    /** Brain float, the upper 16 bits of a float32, stored as raw bits. */
    BFLOAT16(16, "bfloat16", 2, short[].class),
    /** 8-bit float E4M3FN: 4 exponent and 3 mantissa bits, no infinity, NaN {@code S.1111.111}; its bit pattern. */
    FLOAT8E4M3FN(17, "float8e4m3fn", 1, byte[].class),
    /** 8-bit float E4M3FNUZ: no infinity, no negative zero, NaN {@code 0x80}; stored as its bit pattern. */
    FLOAT8E4M3FNUZ(18, "float8e4m3fnuz", 1, byte[].class),
    /** 8-bit float E5M2: 5 exponent bits, 2 mantissa bits, IEEE-like infinities and NaNs; stored as its bit pattern. */
    FLOAT8E5M2(19, "float8e5m2", 1, byte[].class),
    /** 8-bit float E5M2FNUZ: no infinity, no negative zero, NaN {@code 0x80}; stored as its bit pattern. */
    FLOAT8E5M2FNUZ(20, "float8e5m2fnuz", 1, byte[].class),
    /** Unsigned 4-bit integer, one value {@code 0..15} per byte in memory, two per byte in files. */
    UINT4(21, "uint4", 0, byte[].class),
    /** Signed 4-bit integer, one sign-extended value {@code -8..7} per byte in memory, two per byte in files. */
    INT4(22, "int4", 0, byte[].class),
    /** 4-bit float E2M1 (no infinity, no NaN), its pattern in the low nibble of a byte; two per byte in files. */
    FLOAT4E2M1(23, "float4e2m1", 0, byte[].class),
    /** 8-bit exponent-only float E8M0: {@code 2^(x-127)}, NaN {@code 0xFF}; stored as its bit pattern. */
    FLOAT8E8M0(24, "float8e8m0", 1, byte[].class),
    /** Unsigned 2-bit integer, one value {@code 0..3} per byte in memory, four per byte in files. */
    UINT2(25, "uint2", 0, byte[].class),
    /** Signed 2-bit integer, one sign-extended value {@code -2..1} per byte in memory, four per byte in files. */
    INT2(26, "int2", 0, byte[].class);

    private static final ElementType[] BY_CODE = new ElementType[27];

    static {
        for (ElementType t : values()) {
            BY_CODE[t.code] = t;
        }
    }

    private final int code;
    private final String displayName;
    private final int byteSize;
    private final Class<?> storage;

    ElementType(int code, String displayName, int byteSize, Class<?> storage) {
        this.code = code;
        this.displayName = displayName;
        this.byteSize = byteSize;
        this.storage = storage;
    }

    /**
     * Gets the {@code TensorProto.DataType} number.
     *
     * @return the ONNX data type number
     */
    public int code() {
        return code;
    }

    /**
     * Gets the short name used in messages and in the command line's output, such as {@code float32}.
     *
     * @return the display name
     */
    public String displayName() {
        return displayName;
    }

    /**
     * Gets the size of one element in bytes as stored in {@code raw_data}; 0 for strings and for the sub-byte types,
     * which {@link #bitWidth()} describes.
     *
     * @return the element size in bytes
     */
    public int byteSize() {
        return byteSize;
    }

    /**
     * Gets the Java array class that holds elements of this type, or {@code null} when the type is not supported.
     *
     * @return the array class, such as {@code float[].class}
     */
    public Class<?> storage() {
        return storage;
    }

    /**
     * Tells whether tensors of this type can be created and computed.
     *
     * @return true when {@link #storage()} is known
     */
    public boolean isSupported() {
        return storage != null;
    }

    /**
     * Gets the number of bits one element takes in {@code raw_data}: 1 to 64, with 4 for {@code int4},
     * {@code uint4} and {@code float4e2m1} (two per byte) and 2 for {@code int2} and {@code uint2} (four per byte);
     * 0 for strings.
     *
     * @return the bits per element when serialized
     */
    public int bitWidth() {
        switch (this) {
            case UINT4: case INT4: case FLOAT4E2M1: return 4;
            case UINT2: case INT2: return 2;
            default: return byteSize * 8;
        }
    }

    /**
     * Tells whether this is one of the floating-point types kernels compute with (float16, bfloat16, float32,
     * float64). The 8- and 4-bit floats are not among them; see {@link #isNarrowFloat()}.
     *
     * @return true for the supported floating-point types
     */
    public boolean isFloatingPoint() {
        return this == FLOAT || this == DOUBLE || this == FLOAT16 || this == BFLOAT16;
    }

    /**
     * Tells whether this is one of the 8- or 4-bit float types, held as bit patterns in a {@code byte[]} and
     * converted by {@link NarrowFloats}.
     *
     * @return true for the float8 types, float8e8m0 and float4e2m1
     */
    public boolean isNarrowFloat() {
        return this == FLOAT8E4M3FN || this == FLOAT8E4M3FNUZ || this == FLOAT8E5M2 || this == FLOAT8E5M2FNUZ
                || this == FLOAT8E8M0 || this == FLOAT4E2M1;
    }

    /**
     * Tells whether this is one of the 4- or 2-bit integer types, held one value per byte in a {@code byte[]}.
     *
     * @return true for int4, uint4, int2 and uint2
     */
    public boolean isNarrowInteger() {
        return this == INT4 || this == UINT4 || this == INT2 || this == UINT2;
    }

    /**
     * Tells whether this is an integer type read as unsigned.
     *
     * @return true for uint8, uint16, uint32 and uint64 (not for the narrow {@code uint4} and {@code uint2})
     */
    public boolean isUnsigned() {
        return this == UINT8 || this == UINT16 || this == UINT32 || this == UINT64;
    }

    /**
     * Tells whether this is a supported integer type of 8 bits or more, signed or unsigned.
     *
     * @return true for the 8-, 16-, 32- and 64-bit integer types (see {@link #isNarrowInteger()} for the others)
     */
    public boolean isInteger() {
        return this == INT8 || this == UINT8 || this == INT16 || this == UINT16 || this == INT32 || this == UINT32
                || this == INT64 || this == UINT64;
    }

    /**
     * Gets the smallest value of an integer type, narrow types included.
     *
     * @return the minimum, such as -8 for int4 and 0 for the unsigned types
     * @throws InvalidArgumentException when this is not an integer type (uint64's maximum does not fit a long, so
     *         it has no {@link #maxValue()} either)
     */
    public long minValue() {
        switch (this) {
            case INT2: return -2;
            case INT4: return -8;
            case INT8: return Byte.MIN_VALUE;
            case INT16: return Short.MIN_VALUE;
            case INT32: return Integer.MIN_VALUE;
            case INT64: return Long.MIN_VALUE;
            case UINT2: case UINT4: case UINT8: case UINT16: case UINT32: return 0;
            default: throw new InvalidArgumentException(displayName + " has no integer range");
        }
    }

    /**
     * Gets the largest value of an integer type, narrow types included.
     *
     * @return the maximum, such as 7 for int4 and 15 for uint4
     * @throws InvalidArgumentException when this is not an integer type, or is uint64
     */
    public long maxValue() {
        switch (this) {
            case INT2: return 1;
            case UINT2: return 3;
            case INT4: return 7;
            case UINT4: return 15;
            case INT8: return Byte.MAX_VALUE;
            case UINT8: return 0xff;
            case INT16: return Short.MAX_VALUE;
            case UINT16: return 0xffff;
            case INT32: return Integer.MAX_VALUE;
            case UINT32: return 0xffff_ffffL;
            case INT64: return Long.MAX_VALUE;
            default: throw new InvalidArgumentException(displayName + " has no integer range that fits a long");
        }
    }

    /**
     * Finds the type for an ONNX data type number.
     *
     * @param code the {@code TensorProto.DataType} number
     * @return the element type
     * @throws InvalidArgumentException when the number is not an ONNX data type
     */
    public static ElementType fromCode(int code) {
        if (code <= 0 || code >= BY_CODE.length || BY_CODE[code] == null) {
            throw new InvalidArgumentException("unknown ONNX tensor data type " + code);
        }
        return BY_CODE[code];
    }

    /**
     * Finds a type by its display name ({@code float32}) or enum name ({@code FLOAT}), ignoring case.
     *
     * @param name the name
     * @return the element type
     * @throws InvalidArgumentException when no type has that name
     */
    public static ElementType fromName(String name) {
        for (ElementType t : values()) {
            if (t.displayName.equalsIgnoreCase(name) || t.name().equalsIgnoreCase(name)) {
                return t;
            }
        }
        if ("float".equalsIgnoreCase(name)) {
            return FLOAT;
        }
        throw new InvalidArgumentException("unknown element type '" + name + "'");
    }

    @Override
    public String toString() {
        return displayName;
    }
}
