package io.ortex.serve.internal;

import io.ortex.api.ElementType;
import io.ortex.api.Names;

/**
 * The tensor datatypes of the Open Inference Protocol v2 and the Ortex element types they carry. {@code BYTES}
 * carries ONNX strings (UTF-8); the ONNX types the protocol has no name for (complex, 8-bit and narrower floats,
 * 4- and 2-bit integers) cannot cross it.
 */
public enum Datatype {
    /** Booleans: JSON {@code true}/{@code false}, one byte each in binary. */
    BOOL(ElementType.BOOL),
    /** Unsigned 8-bit integers. */
    UINT8(ElementType.UINT8),
    /** Unsigned 16-bit integers. */
    UINT16(ElementType.UINT16),
    /** Unsigned 32-bit integers. */
    UINT32(ElementType.UINT32),
    /** Unsigned 64-bit integers. */
    UINT64(ElementType.UINT64),
    /** Signed 8-bit integers. */
    INT8(ElementType.INT8),
    /** Signed 16-bit integers. */
    INT16(ElementType.INT16),
    /** Signed 32-bit integers. */
    INT32(ElementType.INT32),
    /** Signed 64-bit integers. */
    INT64(ElementType.INT64),
    /** IEEE half precision: JSON numbers, two bytes each in binary. */
    FP16(ElementType.FLOAT16),
    /** IEEE single precision. */
    FP32(ElementType.FLOAT),
    /** IEEE double precision. */
    FP64(ElementType.DOUBLE),
    /** bfloat16: JSON numbers, two bytes each in binary. */
    BF16(ElementType.BFLOAT16),
    /** Strings: JSON strings; in binary each element is a 4-byte little-endian length and its UTF-8 bytes. */
    BYTES(ElementType.STRING);

    private final ElementType elementType;

    Datatype(ElementType elementType) {
        this.elementType = elementType;
    }

    /**
     * Gets the element type this datatype carries.
     *
     * @return the element type
     */
    public ElementType elementType() {
        return elementType;
    }

    /**
     * Gets the size of one element in the binary extension, or 0 for {@code BYTES}, whose elements vary.
     *
     * @return bytes per element
     */
    public int byteSize() {
        return this == BYTES ? 0 : elementType.byteSize();
    }

    /**
     * Parses a datatype name of a request.
     *
     * @param name the name, as the protocol spells it
     * @param input the input that names it, for the message
     * @return the datatype
     * @throws ProtocolException (400) naming the input when the name is not a v2 datatype
     */
    public static Datatype parse(String name, String input) {
        for (Datatype d : values()) {
            if (d.name().equals(name)) {
                return d;
            }
        }
        throw ProtocolException.badRequest("input " + Names.quote(input) + ": unknown datatype " + Names.quote(name)
                + " (one of BOOL, UINT8, UINT16, UINT32, UINT64, INT8, INT16, INT32, INT64, FP16, FP32, FP64, BF16, "
                + "BYTES)");
    }

    /**
     * Gets the datatype that carries an element type.
     *
     * @param type the element type
     * @return the datatype, or null when the protocol cannot carry it
     */
    public static Datatype of(ElementType type) {
        for (Datatype d : values()) {
            if (d.elementType == type) {
                return d;
            }
        }
        return null;
    }
}
