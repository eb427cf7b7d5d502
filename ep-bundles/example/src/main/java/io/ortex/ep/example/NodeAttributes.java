package io.ortex.ep.example;

import io.ortex.api.InvalidModelException;
import io.ortex.api.Names;
import io.ortex.api.TensorInfo;
import io.ortex.api.spi.Attribute;
import io.ortex.api.spi.AttributeType;
import io.ortex.api.spi.NodeView;
import io.ortex.api.spi.ValueView;
import io.ortex.ep.example.program.ConvAttributes;
import io.ortex.ep.example.program.GemmAttributes;
import io.ortex.ep.example.program.MatMulAttributes;
import io.ortex.ep.example.program.OpAttributes;
import io.ortex.ep.example.program.OpCode;
import java.util.Arrays;
import java.util.Map;
import java.util.Set;

/**
 * Reads and checks the ONNX attributes of the nodes the example EP implements, turning them into a program's
 * {@link OpAttributes} with the defaults filled in. The same code decides support in
 * {@link ExampleExecutionProvider#getCapability} (a node whose attributes do not parse is not claimed) and builds
 * the instructions in {@link ProgramCompiler}, so the two can never disagree. Stateless.
 */
final class NodeAttributes {
    private static final Set<String> GEMM_ATTRIBUTES = Set.of("transA", "transB", "alpha", "beta");
    private static final Set<String> CONV_ATTRIBUTES = Set.of("group", "strides", "pads", "dilations", "auto_pad",
            "kernel_shape");

    private NodeAttributes() {
    }

    /**
     * Reads a node's attributes. For {@code MatMul} the result says B is not packed; the compiler changes that when
     * it packs a constant B.
     *
     * @param op the operation the node maps to
     * @param node the node
     * @return the attributes
     * @throws InvalidModelException naming the attribute when one is unknown, of the wrong type or out of range
     */
    static OpAttributes read(OpCode op, NodeView node) {
        return switch (op) {
            case ADD, MUL, RELU -> {
                allowOnly(node, Set.of());
                yield OpAttributes.NONE;
            }
            case MATMUL -> {
                allowOnly(node, Set.of());
                yield new MatMulAttributes(false);
            }
            case GEMM -> gemm(node);
            case CONV, CONV_NHWC -> conv(node);
        };
    }

    private static GemmAttributes gemm(NodeView node) {
        allowOnly(node, GEMM_ATTRIBUTES);
        checkType(node, "alpha", AttributeType.FLOAT);
        checkType(node, "beta", AttributeType.FLOAT);
        return new GemmAttributes(flag(node, "transA"), flag(node, "transB"), node.floatAttr("alpha", 1f),
                node.floatAttr("beta", 1f));
    }

    private static ConvAttributes conv(NodeView node) {
        allowOnly(node, CONV_ATTRIBUTES);
        String autoPad = node.stringAttr("auto_pad", "NOTSET");
        if (!autoPad.equals("NOTSET") && !autoPad.equals("VALID")) {
            throw new InvalidModelException("attribute 'auto_pad' is " + autoPad + "; only NOTSET and VALID are "
                    + "implemented");
        }
        long[] kernel = kernelShape(node);
        int rank = kernel.length;
        if (rank < 1 || rank > 2) {
            throw new InvalidModelException("Conv with " + rank + " spatial axes; only 1 and 2 are implemented");
        }
        TensorInfo x = node.inputs().get(0).typeInfo().orElse(null);
        if (x != null && x.hasShape() && x.dims().length != rank + 2) {
            throw new InvalidModelException("input X has rank " + x.dims().length + " but the kernel has " + rank
                    + " spatial axes");
        }
        long group = node.intAttr("group", 1);
        if (group < 1 || group > Integer.MAX_VALUE) {
            throw new InvalidModelException("attribute 'group' must be at least 1, got " + group);
        }
        long[] strides = ints(node, "strides", rank, 1, 1);
        long[] dilations = ints(node, "dilations", rank, 1, 1);
        long[] pads = autoPad.equals("VALID") ? new long[2 * rank] : ints(node, "pads", 2 * rank, 0, 0);
        if (rank == 1) {
            // run a 1-D convolution as a 2-D one over a height of 1
            return new ConvAttributes(1, (int) group, new int[] {1, (int) kernel[0]},
                    new int[] {1, (int) strides[0]}, new int[] {0, (int) pads[0], 0, (int) pads[1]},
                    new int[] {1, (int) dilations[0]});
        }
        return new ConvAttributes(2, (int) group, new int[] {(int) kernel[0], (int) kernel[1]},
                new int[] {(int) strides[0], (int) strides[1]},
                new int[] {(int) pads[0], (int) pads[1], (int) pads[2], (int) pads[3]},
                new int[] {(int) dilations[0], (int) dilations[1]});
    }

    /**
     * Finds the spatial size of a Conv's kernel: the {@code kernel_shape} attribute, or else the declared shape of
     * the weight W (always known for an initializer).
     */
    private static long[] kernelShape(NodeView node) {
        long[] fromWeight = null;
        ValueView w = node.inputs().size() > 1 ? node.inputs().get(1) : null;
        TensorInfo info = w == null ? null : w.typeInfo().orElse(null);
        if (info != null && info.hasShape() && info.dims().length >= 3) {
            long[] dims = info.dims();
            fromWeight = Arrays.copyOfRange(dims, 2, dims.length);
        }
        long[] attr = node.intsAttr("kernel_shape", null);
        if (attr != null) {
            if (fromWeight != null && fromWeight.length == attr.length) {
                for (int i = 0; i < attr.length; i++) {
                    if (fromWeight[i] >= 0 && fromWeight[i] != attr[i]) {
                        throw new InvalidModelException("attribute 'kernel_shape' " + Arrays.toString(attr)
                                + " does not match weight W's shape");
                    }
                }
            }
            checkRange("kernel_shape", attr, 1);
            return attr;
        }
        if (fromWeight == null) {
            throw new InvalidModelException("the kernel size is unknown: no 'kernel_shape' and no declared shape "
                    + "for weight W");
        }
        checkRange("the weight W's spatial shape", fromWeight, 1);
        return fromWeight;
    }

    private static long[] ints(NodeView node, String name, int length, long fill, long min) {
        checkType(node, name, AttributeType.INTS);
        long[] values = node.intsAttr(name, null);
        if (values == null) {
            values = new long[length];
            Arrays.fill(values, fill);
        }
        if (values.length != length) {
            throw new InvalidModelException("attribute " + Names.quote(name) + " needs " + length + " values, got "
                    + values.length);
        }
        checkRange("attribute " + Names.quote(name), values, min);
        return values;
    }

    private static void checkRange(String what, long[] values, long min) {
        for (long v : values) {
            if (v < min || v > Integer.MAX_VALUE) {
                throw new InvalidModelException(what + " holds " + v + ", below " + min + " or too large");
            }
        }
    }

    private static boolean flag(NodeView node, String name) {
        checkType(node, name, AttributeType.INT);
        long v = node.intAttr(name, 0);
        if (v != 0 && v != 1) {
            throw new InvalidModelException("attribute " + Names.quote(name) + " must be 0 or 1, got " + v);
        }
        return v == 1;
    }

    private static void checkType(NodeView node, String name, AttributeType type) {
        Attribute a = node.attributes().get(name);
        if (a != null && a.type() != type && !(type == AttributeType.FLOAT && a.type() == AttributeType.INT)) {
            throw new InvalidModelException("attribute " + Names.quote(name) + " is " + a.type() + ", expected "
                    + type);
        }
    }

    private static void allowOnly(NodeView node, Set<String> allowed) {
        for (Map.Entry<String, Attribute> e : node.attributes().entrySet()) {
            if (!allowed.contains(e.getKey())) {
                throw new InvalidModelException("attribute " + Names.quote(e.getKey()) + " is not implemented");
            }
        }
    }
}
