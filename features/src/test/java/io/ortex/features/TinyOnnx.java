package io.ortex.features;

import com.google.protobuf.CodedOutputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;

/**
 * A tiny ONNX model written field by field with protobuf's {@link CodedOutputStream}, as the test probe cannot see the
 * generated ONNX classes (io.ortex.onnx exports them only to importers asking with {@code ortex.internal=true}):
 * {@code out = Relu(x + y)} with {@code x, y, out: float[2, 3]}, opset 17. Field numbers are those of onnx.proto.
 */
final class TinyOnnx {
    /** The element type float32 in onnx.proto's TensorProto.DataType. */
    private static final int FLOAT = 1;
    /** The shape of the inputs and the output. */
    static final long[] SHAPE = {2, 3};

    private TinyOnnx() {
    }

    /** The serialized model. */
    static byte[] bytes() {
        byte[] graph = message(out -> {
            out.writeByteArray(1, node("Add", "add", new String[] {"x", "y"}, "s"));     // GraphProto.node
            out.writeByteArray(1, node("Relu", "relu", new String[] {"s"}, "out"));
            out.writeString(2, "tiny");                                                // GraphProto.name
            out.writeByteArray(11, valueInfo("x"));                                    // GraphProto.input
            out.writeByteArray(11, valueInfo("y"));
            out.writeByteArray(12, valueInfo("out"));                                  // GraphProto.output
        });
        return message(out -> {
            out.writeInt64(1, 8);                                                      // ModelProto.ir_version
            out.writeString(2, "ortex-features-it");                                   // ModelProto.producer_name
            out.writeByteArray(7, graph);                                              // ModelProto.graph
            out.writeByteArray(8, message(o -> o.writeInt64(2, 17)));                  // opset_import {version}
        });
    }

    /** What the model computes. */
    static float[] expected(float[] x, float[] y) {
        float[] out = new float[x.length];
        for (int i = 0; i < x.length; i++) {
            out[i] = Math.max(0f, x[i] + y[i]);
        }
        return out;
    }

    private static byte[] node(String op, String name, String[] inputs, String output) {
        return message(out -> {
            for (String in : inputs) {
                out.writeString(1, in);                                                // NodeProto.input
            }
            out.writeString(2, output);                                                // NodeProto.output
            out.writeString(3, name);                                                  // NodeProto.name
            out.writeString(4, op);                                                    // NodeProto.op_type
        });
    }

    private static byte[] valueInfo(String name) {
        byte[] shape = message(out -> {
            for (long d : SHAPE) {
                out.writeByteArray(1, message(o -> o.writeInt64(1, d)));               // dim {dim_value}
            }
        });
        byte[] tensorType = message(out -> {
            out.writeInt32(1, FLOAT);                                                  // TypeProto.Tensor.elem_type
            out.writeByteArray(2, shape);                                              // TypeProto.Tensor.shape
        });
        return message(out -> {
            out.writeString(1, name);                                                  // ValueInfoProto.name
            out.writeByteArray(2, message(o -> o.writeByteArray(1, tensorType)));      // type {tensor_type}
        });
    }

    /** Writes one message's fields. */
    @FunctionalInterface
    private interface Fields {
        void write(CodedOutputStream out) throws IOException;
    }

    private static byte[] message(Fields fields) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        CodedOutputStream out = CodedOutputStream.newInstance(bytes);
        try {
            fields.write(out);
            out.flush();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }
}
