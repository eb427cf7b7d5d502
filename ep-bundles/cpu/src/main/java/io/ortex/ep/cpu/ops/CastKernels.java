package io.ortex.ep.cpu.ops;

import io.ortex.api.ElementType;
import io.ortex.api.InvalidModelException;
import io.ortex.api.NotImplementedException;
import io.ortex.api.Tensor;
import io.ortex.api.spi.NodeView;
import io.ortex.ep.cpu.CpuKernel;

/**
 * Cast and CastLike between every pair of supported element types, strings included. Floating point to integer
 * truncates towards zero and narrows by wrapping; numbers to bool test for non-zero. The {@code saturate}
 * attribute only concerns 8-bit float targets, which (like the 4- and 2-bit types) are not supported and are
 * refused when the kernel is created.
 */
final class CastKernels {
    private static final double TWO_POW_63 = 9.223372036854775808E18;

    private CastKernels() {
    }

    /**
     * Creates the kernel for a Cast node.
     *
     * @param node the node
     * @return the kernel
     */
    static CpuKernel cast(NodeView node) {
        if (node.attribute("to").isEmpty()) {
            throw new InvalidModelException("Cast needs the attribute 'to'");
        }
        ElementType to = ElementType.fromCode((int) node.intAttr("to", 0));
        requireSupported(to, "attribute 'to'");
        return (in, ctx) -> new Tensor[] {convert(in[0], to)};
    }

    /**
     * Creates the kernel for a CastLike node: the target type is the type of the second input.
     *
     * @param node the node
     * @return the kernel
     */
    static CpuKernel castLike(NodeView node) {
        if (node.inputs().size() > 1 && node.inputs().get(1) != null) {
            node.inputs().get(1).typeInfo().ifPresent(info -> requireSupported(info.type(),
                    "input 'target_type'"));
        }
        return (in, ctx) -> new Tensor[] {convert(in[0], in[1].type())};
    }

    private static void requireSupported(ElementType to, String what) {
        if (!to.isSupported()) {
            throw new NotImplementedException("cast to " + to + " (" + what + ") is not supported: 8-bit float, "
                    + "4-bit and 2-bit element types are not implemented");
        }
    }

    /**
     * Converts a tensor to another element type.
     *
     * @param x the input
     * @param to the target type
     * @return the converted tensor (the input itself when the types are equal)
     */
    static Tensor convert(Tensor x, ElementType to) {
        ElementType from = x.type();
        long[] shape = x.shape();
        if (from == to) {
            return x;
        }
        if (to == ElementType.STRING) {
            return Tensor.ofStrings(NumberText.format(x), shape);
        }
        if (from == ElementType.STRING) {
            return NumberText.parse(x.strings(), to, shape);
        }
        if (to == ElementType.BOOL) {
            boolean[] out = new boolean[x.size()];
            if (from.isFloatingPoint()) {
                double[] d = Values.toDoubles(x);
                for (int i = 0; i < out.length; i++) {
                    out[i] = d[i] != 0;
                }
            } else {
                long[] l = Values.toLongs(x);
                for (int i = 0; i < out.length; i++) {
                    out[i] = l[i] != 0;
                }
            }
            return Tensor.ofBooleans(out, shape);
        }
        if (to.isFloatingPoint()) {
            if (from == ElementType.FLOAT || from == ElementType.FLOAT16 || from == ElementType.BFLOAT16) {
                // to differs from from, so a float32 input's own array is only read, never kept
                return Values.fromFloats(to, shape, Values.toFloats(x));
            }
            if (from == ElementType.DOUBLE && to != ElementType.DOUBLE) {
                return Values.fromDoubles(to, shape, x.doubles());
            }
            return Values.fromDoubles(to, shape, Values.toDoubles(x));
        }
        if (!to.isInteger()) {
            throw new NotImplementedException("cast to " + to + " is not supported");
        }
        if (!from.isFloatingPoint()) {
            long[] l = Values.toLongs(x);
            return Values.fromLongs(to, shape, to == ElementType.INT64 || to == ElementType.UINT64 ? l.clone() : l);
        }
        double[] d = Values.toDoubles(x);
        long[] l = new long[d.length];
        boolean u64 = to == ElementType.UINT64;
        for (int i = 0; i < d.length; i++) {
            l[i] = u64 && d[i] >= TWO_POW_63 ? (long) (d[i] - TWO_POW_63) ^ Long.MIN_VALUE : (long) d[i];
        }
        return Values.fromLongs(to, shape, l);
    }
}
