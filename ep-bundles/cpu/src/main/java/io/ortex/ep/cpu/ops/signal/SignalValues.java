package io.ortex.ep.cpu.ops.signal;

import io.ortex.api.ElementType;
import io.ortex.api.HalfFloats;
import io.ortex.api.InvalidModelException;
import io.ortex.api.NotImplementedException;
import io.ortex.api.Tensor;
import io.ortex.api.spi.NodeView;

/**
 * Output helpers of the signal ops whose result type is chosen by an {@code output_datatype} attribute (the
 * window functions and MelWeightMatrix): the values are computed in double and narrowed once at the end.
 */
final class SignalValues {
    private SignalValues() {
    }

    /**
     * Reads the {@code output_datatype} attribute (default float32) and checks that it is numeric.
     *
     * @param node the node
     * @return the element type
     */
    static ElementType outputType(NodeView node) {
        long code = node.intAttr("output_datatype", ElementType.FLOAT.code());
        ElementType type;
        try {
            type = ElementType.fromCode((int) code);
        } catch (RuntimeException e) {
            throw new InvalidModelException("attribute 'output_datatype' " + code + " is not an element type");
        }
        switch (type) {
            case FLOAT: case DOUBLE: case FLOAT16: case BFLOAT16: case INT8: case UINT8: case INT16: case UINT16:
            case INT32: case UINT32: case INT64: case UINT64:
                return type;
            default:
                throw new NotImplementedException("attribute 'output_datatype' " + type + " is not supported");
        }
    }

    /**
     * Makes a tensor of a numeric type from doubles (integers truncate toward zero).
     *
     * @param type a type accepted by {@link #outputType}
     * @param shape the shape
     * @param v the values
     * @return the tensor
     */
    static Tensor fromDoubles(ElementType type, long[] shape, double[] v) {
        int n = v.length;
        switch (type) {
            case DOUBLE:
                return Tensor.of(type, shape, v);
            case FLOAT: {
                float[] a = new float[n];
                for (int i = 0; i < n; i++) {
                    a[i] = (float) v[i];
                }
                return Tensor.of(type, shape, a);
            }
            case FLOAT16: case BFLOAT16: {
                short[] a = new short[n];
                boolean half = type == ElementType.FLOAT16;
                for (int i = 0; i < n; i++) {
                    a[i] = half ? HalfFloats.floatToFloat16((float) v[i]) : HalfFloats.floatToBfloat16((float) v[i]);
                }
                return Tensor.of(type, shape, a);
            }
            case INT8: case UINT8: {
                byte[] a = new byte[n];
                for (int i = 0; i < n; i++) {
                    a[i] = (byte) (long) v[i];
                }
                return Tensor.of(type, shape, a);
            }
            case INT16: case UINT16: {
                short[] a = new short[n];
                for (int i = 0; i < n; i++) {
                    a[i] = (short) (long) v[i];
                }
                return Tensor.of(type, shape, a);
            }
            case INT32: case UINT32: {
                int[] a = new int[n];
                for (int i = 0; i < n; i++) {
                    a[i] = (int) (long) v[i];
                }
                return Tensor.of(type, shape, a);
            }
            case INT64: case UINT64: {
                long[] a = new long[n];
                for (int i = 0; i < n; i++) {
                    a[i] = (long) v[i];
                }
                return Tensor.of(type, shape, a);
            }
            default:
                throw new NotImplementedException("output type " + type + " is not supported");
        }
    }
}
