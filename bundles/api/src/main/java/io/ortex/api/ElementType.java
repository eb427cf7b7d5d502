package io.ortex.api;

/**
 * The element types of ONNX tensors, with their {@code TensorProto.DataType} numbers.
 *
 * <p>Each supported type maps to one Java array class that stores its elements ({@link #storage()}): unsigned
 * types share the array of the signed type of the same width and are read as unsigned, and {@code float16} and
 * {@code bfloat16} are kept as raw 16-bit patterns in a {@code short[]}. The complex, 8-bit float and sub-byte
 * types are listed so that models naming them get a clear error; {@link #isSupported()} is false for them.
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
    /** 8-bit float E4M3FN (not supported yet). */
    FLOAT8E4M3FN(17, "float8e4m3fn", 1, null),
    /** 8-bit float E4M3FNUZ (not supported yet). */
    FLOAT8E4M3FNUZ(18, "float8e4m3fnuz", 1, null),
    /** 8-bit float E5M2 (not supported yet). */
    FLOAT8E5M2(19, "float8e5m2", 1, null),
    /** 8-bit float E5M2FNUZ (not supported yet). */
    FLOAT8E5M2FNUZ(20, "float8e5m2fnuz", 1, null),
    /** Unsigned 4-bit integer (not supported yet). */
    UINT4(21, "uint4", 0, null),
    /** Signed 4-bit integer (not supported yet). */
    INT4(22, "int4", 0, null),
    /** 4-bit float E2M1 (not supported yet). */
    FLOAT4E2M1(23, "float4e2m1", 0, null),
    /** 8-bit exponent-only float E8M0 (not supported yet). */
    FLOAT8E8M0(24, "float8e8m0", 1, null),
    /** Unsigned 2-bit integer (not supported yet). */
    UINT2(25, "uint2", 0, null),
    /** Signed 2-bit integer (not supported yet). */
    INT2(26, "int2", 0, null);

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
     * Gets the size of one element in bytes as stored in {@code raw_data}; 0 for strings and sub-byte types.
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
     * Tells whether this is a floating-point type (float16, bfloat16, float32, float64).
     *
     * @return true for the supported floating-point types
     */
    public boolean isFloatingPoint() {
        return this == FLOAT || this == DOUBLE || this == FLOAT16 || this == BFLOAT16;
    }

    /**
     * Tells whether this is an integer type read as unsigned.
     *
     * @return true for uint8, uint16, uint32 and uint64
     */
    public boolean isUnsigned() {
        return this == UINT8 || this == UINT16 || this == UINT32 || this == UINT64;
    }

    /**
     * Tells whether this is a supported integer type, signed or unsigned.
     *
     * @return true for the 8-, 16-, 32- and 64-bit integer types
     */
    public boolean isInteger() {
        return storage == byte[].class || storage == int[].class || storage == long[].class
                || this == INT16 || this == UINT16;
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
