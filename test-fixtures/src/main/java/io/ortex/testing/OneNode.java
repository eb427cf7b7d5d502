package io.ortex.testing;

import io.ortex.api.ElementType;
import io.ortex.api.Tensor;
import io.ortex.onnx.proto.Onnx.AttributeProto;
import java.util.List;

/** Runs one-node models of the ONNX domain in one call, for operator tests; see {@link OneNodeModel}. */
public final class OneNode {
    private OneNode() {
    }

    /**
     * Makes an integer attribute.
     *
     * @param name the name
     * @param v the value
     * @return the attribute
     */
    public static AttributeProto intAttr(String name, long v) {
        return Attributes.attr(name, v);
    }

    /**
     * Makes a string attribute.
     *
     * @param name the name
     * @param v the value
     * @return the attribute
     */
    public static AttributeProto stringAttr(String name, String v) {
        return Attributes.attr(name, v);
    }

    /**
     * Runs one node whose inputs are the given tensors.
     *
     * @param op the operator
     * @param opset the ONNX opset
     * @param inputs the inputs, {@code null} for an omitted optional input
     * @param outputs how many outputs the node has
     * @param attrs its attributes
     * @return its outputs in order
     */
    public static List<Tensor> run(String op, int opset, Tensor[] inputs, int outputs, AttributeProto... attrs) {
        OneNodeModel m = new OneNodeModel(op, opset);
        for (int i = 0; i < inputs.length; i++) {
            if (inputs[i] == null) {
                m.none();
            } else {
                m.in("x" + i, inputs[i]);
            }
        }
        for (AttributeProto a : attrs) {
            m.attr(a);
        }
        return java.util.Arrays.asList(m.run(outputs));
    }

    /**
     * Runs one node with one output.
     *
     * @param op the operator
     * @param opset the ONNX opset
     * @param inputs the inputs, {@code null} for an omitted optional input
     * @param attrs its attributes
     * @return the output
     */
    public static Tensor run1(String op, int opset, Tensor[] inputs, AttributeProto... attrs) {
        return run(op, opset, inputs, 1, attrs).get(0);
    }

    /**
     * Lists a node's inputs.
     *
     * @param t the inputs, {@code null} for an omitted one
     * @return the same array
     */
    public static Tensor[] in(Tensor... t) {
        return t;
    }

    /**
     * Makes a tensor of a byte-stored type from int values.
     *
     * @param type the element type
     * @param shape its shape
     * @param v the values, each cut to a byte
     * @return the tensor
     */
    public static Tensor bytes(ElementType type, long[] shape, int... v) {
        byte[] b = new byte[v.length];
        for (int i = 0; i < v.length; i++) {
            b[i] = (byte) v[i];
        }
        return Tensor.of(type, shape, b);
    }

    /**
     * Reads a byte-stored tensor as unsigned values.
     *
     * @param t the tensor
     * @return its bytes as 0 to 255
     */
    public static int[] unsigned(Tensor t) {
        byte[] b = t.bytes();
        int[] r = new int[b.length];
        for (int i = 0; i < b.length; i++) {
            r[i] = b[i] & 0xff;
        }
        return r;
    }
}
