package io.ortex.testing;

import com.google.protobuf.ByteString;
import io.ortex.api.Tensor;
import io.ortex.onnx.TensorCodec;
import io.ortex.onnx.proto.Onnx.AttributeProto;
import io.ortex.onnx.proto.Onnx.AttributeProto.AttributeType;
import io.ortex.onnx.proto.Onnx.GraphProto;

/** Makes node attributes ({@code AttributeProto}) for the models tests build. */
public final class Attributes {
    private Attributes() {
    }

    private static AttributeProto.Builder named(String name, AttributeType type) {
        return AttributeProto.newBuilder().setName(name).setType(type);
    }

    /**
     * An integer attribute.
     *
     * @param name the name
     * @param value the value
     * @return the attribute
     */
    public static AttributeProto attr(String name, long value) {
        return named(name, AttributeType.INT).setI(value).build();
    }

    /**
     * A float attribute.
     *
     * @param name the name
     * @param value the value
     * @return the attribute
     */
    public static AttributeProto attr(String name, float value) {
        return named(name, AttributeType.FLOAT).setF(value).build();
    }

    /**
     * A string attribute.
     *
     * @param name the name
     * @param value the value, stored as UTF-8
     * @return the attribute
     */
    public static AttributeProto attr(String name, String value) {
        return named(name, AttributeType.STRING).setS(ByteString.copyFromUtf8(value)).build();
    }

    /**
     * A tensor attribute.
     *
     * @param name the name
     * @param value the value
     * @return the attribute
     */
    public static AttributeProto attr(String name, Tensor value) {
        return named(name, AttributeType.TENSOR).setT(TensorCodec.toProto(value, name)).build();
    }

    /**
     * A graph attribute.
     *
     * @param name the name
     * @param value the subgraph
     * @return the attribute
     */
    public static AttributeProto attr(String name, GraphProto value) {
        return named(name, AttributeType.GRAPH).setG(value).build();
    }

    /**
     * An integer-list attribute.
     *
     * @param name the name
     * @param values the values
     * @return the attribute
     */
    public static AttributeProto ints(String name, long... values) {
        AttributeProto.Builder b = named(name, AttributeType.INTS);
        for (long v : values) {
            b.addInts(v);
        }
        return b.build();
    }

    /**
     * A float-list attribute.
     *
     * @param name the name
     * @param values the values
     * @return the attribute
     */
    public static AttributeProto floats(String name, float... values) {
        AttributeProto.Builder b = named(name, AttributeType.FLOATS);
        for (float v : values) {
            b.addFloats(v);
        }
        return b.build();
    }

    /**
     * A string-list attribute.
     *
     * @param name the name
     * @param values the values, stored as UTF-8
     * @return the attribute
     */
    public static AttributeProto strings(String name, String... values) {
        AttributeProto.Builder b = named(name, AttributeType.STRINGS);
        for (String v : values) {
            b.addStrings(ByteString.copyFromUtf8(v));
        }
        return b.build();
    }
}
