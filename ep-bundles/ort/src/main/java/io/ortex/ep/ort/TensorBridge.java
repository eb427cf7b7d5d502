package io.ortex.ep.ort;

import ai.onnxruntime.OnnxJavaType;
import ai.onnxruntime.OnnxTensor;
import ai.onnxruntime.OrtEnvironment;
import ai.onnxruntime.OrtException;
import ai.onnxruntime.TensorInfo;
import io.ortex.api.ElementType;
import io.ortex.api.NotImplementedException;
import io.ortex.api.Tensor;
import java.lang.reflect.Array;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.FloatBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * Moves tensors between Ortex and ONNX Runtime with one copy each way, the fewest its Java API allows: Ortex's
 * tensors are Java arrays and ONNX Runtime reads direct memory, so an input is copied once into a direct buffer that
 * ONNX Runtime then uses in place (the caller reuses those buffers from run to run), and an output is copied once
 * out of ONNX Runtime's memory into a new array. Strings go through ONNX Runtime's own conversion. Stateless.
 */
final class TensorBridge {
    /** The element types both sides can exchange. */
    static final Set<ElementType> SUPPORTED = Set.of(ElementType.FLOAT, ElementType.DOUBLE, ElementType.INT64,
            ElementType.INT32, ElementType.INT16, ElementType.INT8, ElementType.UINT8, ElementType.BOOL,
            ElementType.FLOAT16, ElementType.BFLOAT16, ElementType.STRING);

    private static final String ORT_TYPE_PREFIX = "ONNX_TENSOR_ELEMENT_DATA_TYPE_";

    private TensorBridge() {
    }

    /**
     * Gives the Ortex element type of an ONNX Runtime one (whose Java numbering is not ONNX's).
     *
     * @param type ONNX Runtime's element type
     * @return the Ortex type, or {@code null} when Ortex has none of that name
     */
    static ElementType elementType(TensorInfo.OnnxTensorType type) {
        String name = type.name().startsWith(ORT_TYPE_PREFIX) ? type.name().substring(ORT_TYPE_PREFIX.length())
                : type.name();
        try {
            return ElementType.valueOf(name);
        } catch (IllegalArgumentException e) {
            return null;
        }
    }

    /**
     * Gives a direct buffer in native byte order of at least the given size: the one given when it is large enough,
     * else a new one.
     *
     * @param reuse a buffer to reuse, or {@code null}
     * @param bytes the size needed
     * @return the buffer, cleared
     */
    static ByteBuffer buffer(ByteBuffer reuse, long bytes) {
        if (bytes > Integer.MAX_VALUE - 8) {
            throw new NotImplementedException("a tensor of " + bytes + " bytes is too large for ONNX Runtime's Java "
                    + "API");
        }
        ByteBuffer b = reuse != null && reuse.capacity() >= bytes ? reuse
                : ByteBuffer.allocateDirect((int) Math.max(bytes, 8)).order(ByteOrder.nativeOrder());
        b.clear();
        return b;
    }

    /**
     * Creates an ONNX Runtime tensor over a direct buffer filled with an Ortex tensor's elements.
     *
     * @param env ONNX Runtime's environment
     * @param t the tensor
     * @param buffer a direct buffer of at least {@link #byteSize(Tensor)} bytes, used in place (unused for strings)
     * @return the ONNX Runtime tensor, which the caller closes before reusing the buffer
     * @throws OrtException when ONNX Runtime refuses it
     * @throws NotImplementedException for an element type ONNX Runtime's Java API cannot carry
     */
    static OnnxTensor toOrt(OrtEnvironment env, Tensor t, ByteBuffer buffer) throws OrtException {
        long[] shape = t.shape();
        switch (t.type()) {
            case FLOAT: {
                FloatBuffer f = buffer.asFloatBuffer();
                f.put(t.floats()).flip();
                return OnnxTensor.createTensor(env, f, shape);
            }
            case DOUBLE:
                return OnnxTensor.createTensor(env, filled(buffer.asDoubleBuffer().put(t.doubles())), shape);
            case INT64:
                return OnnxTensor.createTensor(env, filled(buffer.asLongBuffer().put(t.longs())), shape);
            case INT32:
                return OnnxTensor.createTensor(env, filled(buffer.asIntBuffer().put(t.ints())), shape);
            case INT16:
                return OnnxTensor.createTensor(env, filled(buffer.asShortBuffer().put(t.shorts())), shape,
                        OnnxJavaType.INT16);
            case FLOAT16:
                return OnnxTensor.createTensor(env, filled(buffer.asShortBuffer().put(t.shorts())), shape,
                        OnnxJavaType.FLOAT16);
            case BFLOAT16:
                return OnnxTensor.createTensor(env, filled(buffer.asShortBuffer().put(t.shorts())), shape,
                        OnnxJavaType.BFLOAT16);
            case INT8:
                return OnnxTensor.createTensor(env, filled(buffer.put((byte[]) t.data())), shape, OnnxJavaType.INT8);
            case UINT8:
                return OnnxTensor.createTensor(env, filled(buffer.put((byte[]) t.data())), shape, OnnxJavaType.UINT8);
            case BOOL: {
                boolean[] b = t.booleans();
                for (boolean v : b) {
                    buffer.put(v ? (byte) 1 : (byte) 0);
                }
                return OnnxTensor.createTensor(env, filled(buffer), shape, OnnxJavaType.BOOL);
            }
            case STRING:
                return OnnxTensor.createTensor(env, (String[]) t.data(), shape);
            default:
                throw new NotImplementedException("ONNX Runtime's Java API cannot carry " + t.type() + " tensors");
        }
    }

    private static <B extends java.nio.Buffer> B filled(B b) {
        b.flip();
        return b;
    }

    /**
     * Gets the size of the direct buffer a tensor needs.
     *
     * @param t the tensor
     * @return the bytes; 0 for strings
     */
    static long byteSize(Tensor t) {
        return t.type() == ElementType.STRING ? 0 : (long) t.size() * Math.max(1, t.type().byteSize());
    }

    /**
     * Copies an ONNX Runtime tensor into a new Ortex tensor.
     *
     * @param value the ONNX Runtime tensor
     * @param name the output's name, for messages
     * @return the tensor
     * @throws OrtException when ONNX Runtime fails
     * @throws NotImplementedException for an element type ONNX Runtime's Java API cannot carry
     */
    static Tensor fromOrt(OnnxTensor value, String name) throws OrtException {
        TensorInfo info = value.getInfo();
        long[] shape = info.getShape();
        switch (info.type) {
            case FLOAT: {
                FloatBuffer f = value.getFloatBuffer();
                return Tensor.ofFloats(exact(f.array(), f.arrayOffset(), f.remaining()), shape);
            }
            case DOUBLE: {
                var d = value.getDoubleBuffer();
                return Tensor.ofDoubles(d.array().length == d.remaining() ? d.array() : d.array().clone(), shape);
            }
            case INT64:
                return Tensor.ofLongs(value.getLongBuffer().array(), shape);
            case INT32:
                return Tensor.ofInts(value.getIntBuffer().array(), shape);
            case INT16:
                return Tensor.of(ElementType.INT16, shape, value.getShortBuffer().array());
            case FLOAT16:
                return Tensor.of(ElementType.FLOAT16, shape, value.getShortBuffer().array());
            case BFLOAT16:
                return Tensor.of(ElementType.BFLOAT16, shape, value.getShortBuffer().array());
            case INT8:
                return Tensor.of(ElementType.INT8, shape, value.getByteBuffer().array());
            case UINT8:
                return Tensor.of(ElementType.UINT8, shape, value.getByteBuffer().array());
            case BOOL: {
                byte[] bytes = value.getByteBuffer().array();
                boolean[] b = new boolean[bytes.length];
                for (int i = 0; i < b.length; i++) {
                    b[i] = bytes[i] != 0;
                }
                return Tensor.ofBooleans(b, shape);
            }
            case STRING: {
                List<String> flat = new ArrayList<>();
                flatten(value.getValue(), flat);
                return Tensor.ofStrings(flat.toArray(new String[0]), shape);
            }
            default:
                throw new NotImplementedException("output '" + name + "' of ONNX Runtime has element type "
                        + info.onnxType + ", which its Java API cannot carry");
        }
    }

    private static float[] exact(float[] array, int offset, int length) {
        if (offset == 0 && array.length == length) {
            return array;
        }
        float[] copy = new float[length];
        System.arraycopy(array, offset, copy, 0, length);
        return copy;
    }

    private static void flatten(Object value, List<String> out) {
        if (value instanceof String s) {
            out.add(s);
        } else if (value != null && value.getClass().isArray()) {
            for (int i = 0; i < Array.getLength(value); i++) {
                flatten(Array.get(value, i), out);
            }
        }
    }
}
