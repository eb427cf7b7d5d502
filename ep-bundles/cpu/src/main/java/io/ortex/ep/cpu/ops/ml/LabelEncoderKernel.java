package io.ortex.ep.cpu.ops.ml;

import io.ortex.api.ElementType;
import io.ortex.api.InvalidModelException;
import io.ortex.api.NotImplementedException;
import io.ortex.api.Tensor;
import io.ortex.api.spi.NodeView;
import io.ortex.ep.cpu.CpuKernel;
import io.ortex.ep.cpu.ops.support.ElementArrays;
import io.ortex.ep.cpu.ops.support.Values;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * LabelEncoder (ai.onnx.ml opsets 2 to 4): maps each input element through the table {@code keys_* -> values_*}
 * (string, int64 and float lists, or the opset-4 {@code keys_tensor}/{@code values_tensor} of any type), with the
 * default value for a key not in the table. Keys are compared as strings, integers or doubles (NaN matches NaN).
 */
final class LabelEncoderKernel {
    private LabelEncoderKernel() {
    }

    /**
     * Makes the kernel, building the lookup table once.
     *
     * @param node the node
     * @return the kernel
     */
    static CpuKernel create(NodeView node) {
        List<Object> keys = keys(node);
        Tensor values = values(node);
        if (keys.size() != values.size()) {
            throw new InvalidModelException("LabelEncoder has " + keys.size() + " keys but " + values.size()
                    + " values");
        }
        Map<Object, Integer> table = new HashMap<>();
        for (int i = 0; i < keys.size(); i++) {
            table.putIfAbsent(keys.get(i), i);
        }
        Tensor dflt = defaultValue(node, values.type());
        // the values followed by the default, so that a miss gathers the last element
        int n = values.size();
        Object source = ElementArrays.allocate(values.type(), n + 1);
        System.arraycopy(values.data(), 0, source, 0, n);
        System.arraycopy(dflt.data(), 0, source, n, 1);
        ElementType outType = values.type();
        return (in, ctx) -> {
            Tensor x = in[0];
            int[] map = new int[x.size()];
            for (int i = 0; i < map.length; i++) {
                map[i] = table.getOrDefault(key(x, i), n);
            }
            Object out = ElementArrays.allocate(outType, map.length);
            ElementArrays.gather(source, map, out);
            return new Tensor[] {Tensor.of(outType, x.shape(), out)};
        };
    }

    private static Object key(Tensor t, int i) {
        ElementType type = t.type();
        if (type == ElementType.STRING) {
            return t.strings()[i];
        }
        if (type.isInteger()) {
            return t.getLong(i);
        }
        if (type.isFloatingPoint()) {
            double d = t.getDouble(i);
            return Double.isNaN(d) ? Double.NaN : d;
        }
        throw new NotImplementedException("LabelEncoder key type " + type + " is not supported");
    }

    private static List<Object> keys(NodeView node) {
        if (node.attribute("keys_strings").isPresent()) {
            return List.<Object>copyOf(node.attribute("keys_strings").get().asStrings());
        }
        if (node.attribute("keys_int64s").isPresent()) {
            long[] v = node.intsAttr("keys_int64s", null);
            Object[] k = new Object[v.length];
            for (int i = 0; i < v.length; i++) {
                k[i] = v[i];
            }
            return List.of(k);
        }
        if (node.attribute("keys_floats").isPresent()) {
            float[] v = node.floatsAttr("keys_floats", null);
            Object[] k = new Object[v.length];
            for (int i = 0; i < v.length; i++) {
                k[i] = Float.isNaN(v[i]) ? Double.NaN : (double) v[i];
            }
            return List.of(k);
        }
        Tensor t = node.tensorAttr("keys_tensor");
        if (t == null) {
            throw new InvalidModelException("LabelEncoder needs one of keys_strings, keys_int64s, keys_floats or "
                    + "keys_tensor");
        }
        Object[] k = new Object[t.size()];
        for (int i = 0; i < k.length; i++) {
            k[i] = key(t, i);
        }
        return List.of(k);
    }

    private static Tensor values(NodeView node) {
        if (node.attribute("values_strings").isPresent()) {
            List<String> v = node.attribute("values_strings").get().asStrings();
            return Tensor.ofStrings(v.toArray(new String[0]), v.size());
        }
        if (node.attribute("values_int64s").isPresent()) {
            long[] v = node.intsAttr("values_int64s", null);
            return Tensor.ofLongs(v, v.length);
        }
        if (node.attribute("values_floats").isPresent()) {
            float[] v = node.floatsAttr("values_floats", null);
            return Tensor.ofFloats(v, v.length);
        }
        Tensor t = node.tensorAttr("values_tensor");
        if (t == null) {
            throw new InvalidModelException("LabelEncoder needs one of values_strings, values_int64s, "
                    + "values_floats or values_tensor");
        }
        return t;
    }

    private static Tensor defaultValue(NodeView node, ElementType type) {
        Tensor t = node.tensorAttr("default_tensor");
        if (t != null) {
            if (t.size() != 1 || t.type() != type) {
                throw new InvalidModelException("attribute 'default_tensor' must hold one " + type + " element");
            }
            return t;
        }
        if (type == ElementType.STRING) {
            return Tensor.ofStrings(new String[] {node.stringAttr("default_string", "_Unused")}, 1);
        }
        if (type == ElementType.INT64) {
            return Tensor.ofLongs(new long[] {node.intAttr("default_int64", -1)}, 1);
        }
        if (type == ElementType.FLOAT) {
            return Tensor.ofFloats(new float[] {node.floatAttr("default_float", -0f)}, 1);
        }
        double d = type.isFloatingPoint() ? -0.0 : -1;
        return Values.fromDoubles(type, new long[] {1}, new double[] {d});
    }
}
