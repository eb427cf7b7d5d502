package io.ortex.serve.internal;

import io.ortex.api.Names;
import io.ortex.api.Tensor;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

/**
 * The binary tensor data extension's element layout: row-major, little-endian, booleans one byte each, {@code BYTES}
 * elements each a 4-byte little-endian length followed by that many bytes (read and written as UTF-8).
 */
final class BinaryTensors {
    private BinaryTensors() {
    }

    /**
     * Decodes one input's binary data.
     *
     * @param input the input's name, for messages
     * @param datatype the declared datatype
     * @param shape the declared shape
     * @param count the element count of the shape
     * @param data the body
     * @param offset where the input's bytes start
     * @param length its size in bytes
     * @param sizeName what the transport calls that size, for messages ({@code binary_data_size}, ...)
     * @return the tensor
     * @throws ProtocolException (400) when the size does not fit the datatype and shape
     */
    static Tensor decode(String input, Datatype datatype, long[] shape, int count, byte[] data, int offset,
            int length, String sizeName) {
        ByteBuffer b = ByteBuffer.wrap(data, offset, length).slice().order(ByteOrder.LITTLE_ENDIAN);
        if (datatype == Datatype.BYTES) {
            return Tensor.of(datatype.elementType(), shape, strings(input, shape, count, b));
        }
        long expected = (long) count * datatype.byteSize();
        if (expected != length) {
            throw ProtocolException.badRequest("input " + Names.quote(input) + ": " + sizeName + " " + length
                    + " does not fit " + datatype + " of shape " + Shapes.text(shape) + ", which takes "
                    + expected + " bytes");
        }
        Object values = switch (datatype) {
            case FP32 -> {
                float[] a = new float[count];
                b.asFloatBuffer().get(a);
                yield a;
            }
            case FP64 -> {
                double[] a = new double[count];
                b.asDoubleBuffer().get(a);
                yield a;
            }
            case INT64, UINT64 -> {
                long[] a = new long[count];
                b.asLongBuffer().get(a);
                yield a;
            }
            case INT32, UINT32 -> {
                int[] a = new int[count];
                b.asIntBuffer().get(a);
                yield a;
            }
            case INT16, UINT16, FP16, BF16 -> {
                short[] a = new short[count];
                b.asShortBuffer().get(a);
                yield a;
            }
            case INT8, UINT8 -> {
                byte[] a = new byte[count];
                b.get(a);
                yield a;
            }
            case BOOL -> {
                boolean[] a = new boolean[count];
                for (int i = 0; i < count; i++) {
                    a[i] = b.get() != 0;
                }
                yield a;
            }
            case BYTES -> throw new IllegalStateException("BYTES is decoded above");
        };
        return Tensor.of(datatype.elementType(), shape, values);
    }

    private static String[] strings(String input, long[] shape, int count, ByteBuffer b) {
        String[] a = new String[count];
        for (int i = 0; i < count; i++) {
            if (b.remaining() < 4) {
                throw ProtocolException.badRequest("input " + Names.quote(input) + ": the binary data of shape "
                        + Shapes.text(shape) + " ends after " + i + " of its " + count + " BYTES elements");
            }
            int n = b.getInt();
            if (n < 0 || n > b.remaining()) {
                throw ProtocolException.badRequest("input " + Names.quote(input) + ": BYTES element " + i
                        + " declares " + Integer.toUnsignedString(n) + " bytes, only " + b.remaining() + " follow");
            }
            byte[] bytes = new byte[n];
            b.get(bytes);
            a[i] = new String(bytes, StandardCharsets.UTF_8);
        }
        if (b.hasRemaining()) {
            throw ProtocolException.badRequest("input " + Names.quote(input) + ": " + b.remaining()
                    + " bytes are left over after its " + count + " BYTES elements");
        }
        return a;
    }

    /**
     * Encodes a tensor's elements.
     *
     * @param tensor the tensor, of a type {@link Datatype} carries
     * @param out where the bytes go
     */
    static void encode(Tensor tensor, ByteArrayOutputStream out) {
        int n = tensor.size();
        if (tensor.data() instanceof String[] strings) {
            ByteBuffer len = ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN);
            for (String s : strings) {
                byte[] bytes = s.getBytes(StandardCharsets.UTF_8);
                out.write(len.putInt(0, bytes.length).array(), 0, 4);
                out.write(bytes, 0, bytes.length);
            }
            return;
        }
        int width = tensor.type().byteSize();
        ByteBuffer b = ByteBuffer.allocate(n * width).order(ByteOrder.LITTLE_ENDIAN);
        Object data = tensor.data();
        if (data instanceof float[] a) {
            b.asFloatBuffer().put(a);
        } else if (data instanceof double[] a) {
            b.asDoubleBuffer().put(a);
        } else if (data instanceof long[] a) {
            b.asLongBuffer().put(a);
        } else if (data instanceof int[] a) {
            b.asIntBuffer().put(a);
        } else if (data instanceof short[] a) {
            b.asShortBuffer().put(a);
        } else if (data instanceof byte[] a) {
            b.put(a);
        } else if (data instanceof boolean[] a) {
            for (boolean v : a) {
                b.put((byte) (v ? 1 : 0));
            }
        } else {
            throw new IllegalStateException("no binary layout for " + tensor.type());
        }
        out.write(b.array(), 0, b.capacity());
    }
}
