package io.ortex.ep.cpu.ops.tensor;

import io.ortex.api.ElementType;
import io.ortex.api.InvalidModelException;
import io.ortex.api.NotImplementedException;
import io.ortex.api.Tensor;
import io.ortex.api.spi.Attribute;
import io.ortex.api.spi.NodeView;
import io.ortex.ep.cpu.CpuKernel;
import java.util.List;

/**
 * Constant: the value comes from exactly one of the attributes {@code value}, {@code value_float(s)},
 * {@code value_int(s)} or {@code value_string(s)} and is built once when the kernel is created; every run returns
 * that same (immutable) tensor. {@code sparse_value} is not supported.
 */
final class ConstantKernel {
    private ConstantKernel() {
    }

    /**
     * Creates the kernel for a Constant node.
     *
     * @param node the node
     * @return the kernel
     */
    static CpuKernel create(NodeView node) {
        Tensor value = value(node);
        return (in, ctx) -> new Tensor[] {value};
    }

    private static Tensor value(NodeView node) {
        if (node.attribute("sparse_value").isPresent()) {
            throw new NotImplementedException("Constant attribute 'sparse_value' (a sparse tensor) is not supported");
        }
        Tensor found = null;
        int count = 0;
        for (Attribute a : node.attributes().values()) {
            Tensor t = fromAttribute(a);
            if (t != null) {
                found = t;
                count++;
            }
        }
        if (count != 1) {
            throw new InvalidModelException("Constant needs exactly one of the attributes value, value_float, "
                    + "value_floats, value_int, value_ints, value_string, value_strings; it has " + count);
        }
        return found;
    }

    private static Tensor fromAttribute(Attribute a) {
        switch (a.name()) {
            case "value":
                return a.asTensor();
            case "value_float":
                return Tensor.ofFloats(new float[] {a.asFloat()});
            case "value_floats": {
                float[] f = a.asFloats();
                return Tensor.ofFloats(f, f.length);
            }
            case "value_int":
                return Tensor.ofLongs(new long[] {a.asInt()});
            case "value_ints": {
                long[] l = a.asInts();
                return Tensor.ofLongs(l, l.length);
            }
            case "value_string":
                return Tensor.ofStrings(new String[] {a.asString()});
            case "value_strings": {
                List<String> s = a.asStrings();
                return Tensor.of(ElementType.STRING, new long[] {s.size()}, s.toArray(new String[0]));
            }
            default:
                return null;
        }
    }
}
