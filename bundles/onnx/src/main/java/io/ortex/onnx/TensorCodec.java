package io.ortex.onnx;

import com.google.protobuf.ByteString;
import com.google.protobuf.CodedInputStream;
import io.ortex.api.ElementType;
import io.ortex.api.ErrorCode;
import io.ortex.api.InvalidArgumentException;
import io.ortex.api.InvalidModelException;
import io.ortex.api.Names;
import io.ortex.api.NotImplementedException;
import io.ortex.api.Tensor;
import io.ortex.onnx.proto.Onnx.TensorProto;
import java.io.IOException;
import java.lang.reflect.Array;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * Converts between {@link Tensor} and ONNX's {@code TensorProto}, both ways: elements in {@code raw_data}
 * (little-endian) or in the typed fields ({@code float_data}, {@code int32_data}, ...), as ONNX allows. Data held in
 * external files is read by {@link ExternalData}, which hands the bytes to {@link #fromBytes}.
 *
 * <p>The sub-byte types are packed as ONNX stores them, low bits first: {@code int4}, {@code uint4} and
 * {@code float4e2m1} two per byte, {@code int2} and {@code uint2} four per byte, the last byte padded with zeros.
 * In {@code int32_data} each entry holds one such packed byte; the 8-bit floats take one entry per element. In
 * memory every one of these types has one element per byte (see {@link ElementType}).
 */
public final class TensorCodec {
    private TensorCodec() {
    }

    /**
     * Parses and decodes a serialized {@code TensorProto} (a {@code .pb} tensor file's content).
     *
     * @param bytes the serialized message
     * @param what what the bytes are, for messages (a file name, say)
     * @return the tensor
     * @throws InvalidArgumentException when the bytes are not a {@code TensorProto}, naming {@code what}
     * @throws InvalidModelException when the data does not match the shape, naming the tensor
     * @throws NotImplementedException for element types Ortex does not support
     */
    public static Tensor parse(byte[] bytes, String what) {
        TensorProto proto;
        try {
            CodedInputStream in = CodedInputStream.newInstance(bytes);
            in.setRecursionLimit(16);
            proto = TensorProto.parseFrom(in);
        } catch (IOException e) {
            throw new InvalidArgumentException(ErrorCode.INVALID_PROTOBUF, what + " is not a TensorProto: "
                    + e.getMessage(), e);
        }
        return fromProto(proto);
    }

    /**
     * Decodes a tensor whose elements are inside the message.
     *
     * @param proto the message
     * @return the tensor
     * @throws InvalidModelException when the data does not match the shape, naming the tensor
     * @throws NotImplementedException for element types Ortex does not support
     */
    public static Tensor fromProto(TensorProto proto) {
        if (proto.getDataLocation() == TensorProto.DataLocation.EXTERNAL) {
            throw new InvalidModelException("tensor " + Names.quote(proto.getName())
                    + " keeps its data in an external file; load it through the model");
        }
        ElementType type = elementType(proto);
        long[] shape = shape(proto);
        int count = elementCount(proto, shape);
        if (proto.hasRawData()) {
            return fromBytes(proto.getName(), type, shape, count,
                    proto.getRawData().asReadOnlyByteBuffer());
        }
        return fromTypedFields(proto, type, shape, count);
    }

    /**
     * Decodes a tensor from little-endian bytes, as found in {@code raw_data} or an external file.
     *
     * @param name the tensor's name, for messages
     * @param type the element type
     * @param shape the dimensions
     * @param count the element count of {@code shape}
     * @param bytes the bytes, positioned at the first element
     * @return the tensor
     */
    public static Tensor fromBytes(String name, ElementType type, long[] shape, int count, ByteBuffer bytes) {
        requireNumeric(name, type, "raw_data");
        long expected = byteCount(type, count);
        if (bytes.remaining() != expected) {
            throw new InvalidModelException("tensor " + Names.quote(name) + " of type " + type + " and shape "
                    + Tensor.shapeString(shape) + " needs " + expected + " bytes of data, found " + bytes.remaining());
        }
        Object data = Array.newInstance(type.storage().getComponentType(), count);
        decodeInto(type, bytes, data, 0);
        return Tensor.of(type, shape, data);
    }

    /**
     * Decodes little-endian elements into part of an array, so that data larger than one buffer can be decoded in
     * pieces.
     *
     * @param type the element type, numeric and supported
     * @param bytes the bytes, positioned at the first element; every remaining byte is decoded
     * @param array an array of class {@code type.storage()}
     * @param start the index in {@code array} of the first decoded element
     */
    static void decodeInto(ElementType type, ByteBuffer bytes, Object array, int start) {
        ByteBuffer le = bytes.slice().order(ByteOrder.LITTLE_ENDIAN);
        if (type.bitWidth() < 8) {
            byte[] a = (byte[]) array;
            int n = (int) Math.min((long) le.remaining() * (8 / type.bitWidth()), a.length - start);
            unpack(type, le, a, start, n);
            return;
        }
        int n = le.remaining() / type.byteSize();
        if (array instanceof float[] a) {
            le.asFloatBuffer().get(a, start, n);
        } else if (array instanceof double[] a) {
            le.asDoubleBuffer().get(a, start, n);
        } else if (array instanceof long[] a) {
            le.asLongBuffer().get(a, start, n);
        } else if (array instanceof int[] a) {
            le.asIntBuffer().get(a, start, n);
        } else if (array instanceof short[] a) {
            le.asShortBuffer().get(a, start, n);
        } else if (array instanceof byte[] a) {
            le.get(a, start, n);
        } else if (array instanceof boolean[] a) {
            for (int i = 0; i < n; i++) {
                a[start + i] = le.get(i) != 0;
            }
        } else {
            throw new NotImplementedException("cannot decode " + type + " elements from bytes");
        }
    }

    /**
     * Counts the bytes that a number of elements takes in {@code raw_data} or an external file, sub-byte types
     * packed.
     *
     * @param type a numeric element type
     * @param count the element count
     * @return the byte count
     */
    public static long byteCount(ElementType type, long count) {
        int bits = type.bitWidth();
        return bits >= 8 ? count * (bits / 8) : (count * bits + 7) / 8;
    }

    /**
     * Unpacks sub-byte elements, low bits first, into one element per byte: int4 and int2 sign-extended, the other
     * types as their bit patterns.
     *
     * @param type int4, uint4, float4e2m1, int2 or uint2
     * @param packed the bytes, read from their position on
     * @param out the elements
     * @param start the index in {@code out} of the first element
     * @param n the number of elements
     */
    private static void unpack(ElementType type, ByteBuffer packed, byte[] out, int start, int n) {
        int bits = type.bitWidth();
        int perByte = 8 / bits;
        int mask = (1 << bits) - 1;
        int signShift = 32 - bits;
        boolean signed = type == ElementType.INT4 || type == ElementType.INT2;
        int base = packed.position();
        for (int i = 0; i < n; i++) {
            int v = (packed.get(base + i / perByte) >>> ((i % perByte) * bits)) & mask;
            out[start + i] = (byte) (signed ? (v << signShift) >> signShift : v);
        }
    }

    /**
     * Packs one-element-per-byte sub-byte elements, low bits first, the last byte padded with zeros.
     *
     * @param type int4, uint4, float4e2m1, int2 or uint2
     * @param elements the elements
     * @return the packed bytes
     */
    private static byte[] pack(ElementType type, byte[] elements) {
        int bits = type.bitWidth();
        int perByte = 8 / bits;
        int mask = (1 << bits) - 1;
        byte[] out = new byte[(int) byteCount(type, elements.length)];
        for (int i = 0; i < elements.length; i++) {
            out[i / perByte] |= (byte) ((elements[i] & mask) << ((i % perByte) * bits));
        }
        return out;
    }

    /**
     * Refuses element types that cannot be read from bytes: strings and the types Ortex does not support.
     *
     * @param name the tensor's name, for messages
     * @param type the element type
     * @param where where the bytes are ({@code raw_data}, an external file), for messages
     */
    static void requireNumeric(String name, ElementType type, String where) {
        if (!type.isSupported()) {
            throw new NotImplementedException("tensor " + Names.quote(name) + " has element type " + type
                    + ", which Ortex does not support yet");
        }
        if (type == ElementType.STRING) {
            throw new InvalidModelException("string tensor " + Names.quote(name) + " cannot keep its data in " + where);
        }
    }

    /**
     * Names the typed field that holds elements of a type when they are not in {@code raw_data}, as ONNX specifies.
     *
     * @param type a supported element type
     * @return the field name, such as {@code int32_data}
     */
    static String typedField(ElementType type) {
        switch (type) {
            case FLOAT: return "float_data";
            case DOUBLE: return "double_data";
            case INT64: return "int64_data";
            case UINT64: case UINT32: return "uint64_data";
            case STRING: return "string_data";
            default: return "int32_data";
        }
    }

    /**
     * Counts the elements in the typed field that holds a type's elements.
     *
     * @param p the message
     * @param type a supported element type
     * @return the number of elements in {@link #typedField}
     */
    static int typedFieldCount(TensorProto p, ElementType type) {
        switch (typedField(type)) {
            case "float_data": return p.getFloatDataCount();
            case "double_data": return p.getDoubleDataCount();
            case "int64_data": return p.getInt64DataCount();
            case "uint64_data": return p.getUint64DataCount();
            case "string_data": return p.getStringDataCount();
            default: return p.getInt32DataCount();
        }
    }

    /**
     * Counts the entries of the typed field that a number of elements takes: one per element, except for the
     * sub-byte types, whose entries each hold one packed byte.
     *
     * @param type a supported element type
     * @param count the element count
     * @return the number of entries in {@link #typedField}
     */
    public static long typedFieldEntries(ElementType type, long count) {
        return type.bitWidth() < 8 && type != ElementType.STRING ? byteCount(type, count) : count;
    }

    private static Tensor fromTypedFields(TensorProto p, ElementType type, long[] shape, int count) {
        String name = p.getName();
        if (type.bitWidth() < 8 && type != ElementType.STRING) {
            int entries = (int) typedFieldEntries(type, count);
            int found = p.getInt32DataCount();
            if (found != entries) {
                throw new InvalidModelException("tensor " + Names.quote(name) + " of type " + type + " needs " + entries
                        + " packed bytes in int32_data for " + count + " elements, found " + found);
            }
            byte[] packed = new byte[entries];
            for (int i = 0; i < entries; i++) {
                packed[i] = (byte) p.getInt32Data(i);
            }
            byte[] a = new byte[count];
            unpack(type, ByteBuffer.wrap(packed), a, 0, count);
            return Tensor.of(type, shape, a);
        }
        checkCount(name, typedField(type), typedFieldCount(p, type), count);
        Object data;
        switch (type) {
            case FLOAT: {
                float[] a = new float[count];
                for (int i = 0; i < count; i++) {
                    a[i] = p.getFloatData(i);
                }
                data = a;
                break;
            }
            case DOUBLE: {
                double[] a = new double[count];
                for (int i = 0; i < count; i++) {
                    a[i] = p.getDoubleData(i);
                }
                data = a;
                break;
            }
            case INT64: {
                long[] a = new long[count];
                for (int i = 0; i < count; i++) {
                    a[i] = p.getInt64Data(i);
                }
                data = a;
                break;
            }
            case UINT64: {
                long[] a = new long[count];
                for (int i = 0; i < count; i++) {
                    a[i] = p.getUint64Data(i);
                }
                data = a;
                break;
            }
            case UINT32: {
                int[] a = new int[count];
                for (int i = 0; i < count; i++) {
                    a[i] = (int) p.getUint64Data(i);
                }
                data = a;
                break;
            }
            case INT32: {
                int[] a = new int[count];
                for (int i = 0; i < count; i++) {
                    a[i] = p.getInt32Data(i);
                }
                data = a;
                break;
            }
            case INT16: case UINT16: case FLOAT16: case BFLOAT16: {
                short[] a = new short[count];
                for (int i = 0; i < count; i++) {
                    a[i] = (short) p.getInt32Data(i);
                }
                data = a;
                break;
            }
            case INT8: case UINT8: case FLOAT8E4M3FN: case FLOAT8E4M3FNUZ: case FLOAT8E5M2: case FLOAT8E5M2FNUZ:
            case FLOAT8E8M0: {
                byte[] a = new byte[count];
                for (int i = 0; i < count; i++) {
                    a[i] = (byte) p.getInt32Data(i);
                }
                data = a;
                break;
            }
            case BOOL: {
                boolean[] a = new boolean[count];
                for (int i = 0; i < count; i++) {
                    a[i] = p.getInt32Data(i) != 0;
                }
                data = a;
                break;
            }
            case STRING: {
                String[] a = new String[count];
                for (int i = 0; i < count; i++) {
                    a[i] = p.getStringData(i).toString(StandardCharsets.UTF_8);
                }
                data = a;
                break;
            }
            default:
                throw new NotImplementedException("tensor " + Names.quote(name) + " has unsupported element type "
                        + type);
        }
        return Tensor.of(type, shape, data);
    }

    /**
     * Encodes a tensor; numbers go to {@code raw_data}, strings to {@code string_data}.
     *
     * @param tensor the tensor
     * @param name the name to give it
     * @return the message
     */
    public static TensorProto toProto(Tensor tensor, String name) {
        TensorProto.Builder b = TensorProto.newBuilder().setName(name).setDataType(tensor.type().code());
        for (long d : tensor.shape()) {
            b.addDims(d);
        }
        if (tensor.type() == ElementType.STRING) {
            for (String s : tensor.strings()) {
                b.addStringData(ByteString.copyFromUtf8(s));
            }
        } else {
            b.setRawData(ByteString.copyFrom(toBytes(tensor)));
        }
        return b.build();
    }

    /**
     * Encodes a numeric tensor's elements as little-endian bytes, sub-byte types packed.
     *
     * @param tensor the tensor, not of type string
     * @return a buffer positioned at 0, its limit the byte count
     */
    public static ByteBuffer toBytes(Tensor tensor) {
        ElementType type = tensor.type();
        if (type.bitWidth() < 8 && type != ElementType.STRING) {
            return ByteBuffer.wrap(pack(type, tensor.bytes())).order(ByteOrder.LITTLE_ENDIAN);
        }
        ByteBuffer buf = ByteBuffer.allocate(tensor.size() * type.byteSize()).order(ByteOrder.LITTLE_ENDIAN);
        Object data = tensor.data();
        if (data instanceof float[] a) {
            buf.asFloatBuffer().put(a);
        } else if (data instanceof double[] a) {
            buf.asDoubleBuffer().put(a);
        } else if (data instanceof long[] a) {
            buf.asLongBuffer().put(a);
        } else if (data instanceof int[] a) {
            buf.asIntBuffer().put(a);
        } else if (data instanceof short[] a) {
            buf.asShortBuffer().put(a);
        } else if (data instanceof byte[] a) {
            buf.put(a).flip();
        } else if (data instanceof boolean[] a) {
            for (boolean v : a) {
                buf.put((byte) (v ? 1 : 0));
            }
            buf.flip();
        } else {
            throw new NotImplementedException("cannot encode a " + type + " tensor as bytes");
        }
        return buf.position(0).limit(tensor.size() * type.byteSize());
    }

    /**
     * Reads the element type of a message, refusing unknown numbers.
     *
     * @param proto the message
     * @return the element type
     */
    public static ElementType elementType(TensorProto proto) {
        int code = proto.getDataType();
        if (code == 0) {
            throw new InvalidModelException("tensor " + Names.quote(proto.getName()) + " has no data_type");
        }
        ElementType type;
        try {
            type = ElementType.fromCode(code);
        } catch (RuntimeException e) {
            throw new InvalidModelException("tensor " + Names.quote(proto.getName()) + " has unknown data_type "
                    + code);
        }
        if (!type.isSupported()) {
            throw new NotImplementedException("tensor " + Names.quote(proto.getName()) + " has element type " + type
                    + ", which Ortex does not support yet");
        }
        return type;
    }

    /**
     * Reads the dimensions of a message, refusing negative ones.
     *
     * @param proto the message
     * @return the dimensions
     */
    public static long[] shape(TensorProto proto) {
        List<Long> dims = proto.getDimsList();
        long[] shape = new long[dims.size()];
        for (int i = 0; i < shape.length; i++) {
            shape[i] = dims.get(i);
            if (shape[i] < 0) {
                throw new InvalidModelException("tensor " + Names.quote(proto.getName()) + " has negative dimension "
                        + shape[i]);
            }
        }
        return shape;
    }

    /**
     * Computes the element count, refusing shapes too large to allocate before anything is allocated.
     *
     * @param proto the message, for its name
     * @param shape the dimensions
     * @return the element count
     */
    public static int elementCount(TensorProto proto, long[] shape) {
        try {
            return Tensor.checkedElementCount(shape);
        } catch (RuntimeException e) {
            throw new InvalidModelException("tensor " + Names.quote(proto.getName()) + ": " + e.getMessage());
        }
    }

    private static void checkCount(String name, String field, int found, int expected) {
        if (found != expected) {
            throw new InvalidModelException("tensor " + Names.quote(name) + " needs " + expected + " elements in "
                    + field
                    + ", found " + found);
        }
    }
}
