package io.ortex.ep.cpu.ops.nn;

import io.ortex.api.InvalidArgumentException;
import io.ortex.api.InvalidModelException;
import io.ortex.api.NotImplementedException;
import io.ortex.api.spi.NodeView;
import java.util.Arrays;

/**
 * The sliding-window geometry shared by convolution and pooling: kernel, strides, dilations and pads resolved for
 * one input size, with 1-D and 2-D problems lifted to 3-D (leading spatial axes of size 1) so that one loop nest
 * serves every rank. Immutable.
 */
public final class Window {
    /** Input spatial size, kernel, stride, dilation, begin and end pads and output size, per lifted axis. */
    final int[] in = new int[3];
    final int[] k = new int[3];
    final int[] s = new int[3];
    final int[] d = new int[3];
    final int[] pb = new int[3];
    final int[] pe = new int[3];
    final int[] out = new int[3];
    /** The output spatial shape, at the original rank. */
    final long[] outShape;

    private Window(int rank) {
        outShape = new long[rank];
    }

    /**
     * The window attributes of a node, as written (kernel may be absent for convolutions). Immutable.
     *
     * @param op the op type, for messages
     * @param autoPad the {@code auto_pad} value
     * @param kernel {@code kernel_shape}, or {@code null}
     * @param strides {@code strides}, or {@code null}
     * @param pads {@code pads}, or {@code null}
     * @param dilations {@code dilations}, or {@code null}
     * @param ceil whether {@code ceil_mode} is set
     */
    public record Attrs(String op, String autoPad, long[] kernel, long[] strides, long[] pads, long[] dilations,
            boolean ceil) {
    }

    /**
     * Reads the window attributes of a node.
     *
     * @param node the node
     * @param kernelRequired whether {@code kernel_shape} must be set (pooling)
     * @return the attributes
     */
    public static Attrs attrs(NodeView node, boolean kernelRequired) {
        long[] kernel = node.intsAttr("kernel_shape", null);
        if (kernelRequired && kernel == null) {
            throw new InvalidModelException(node.opType() + " requires the attribute kernel_shape");
        }
        String autoPad = node.stringAttr("auto_pad", "NOTSET");
        switch (autoPad) {
            case "NOTSET": case "SAME_UPPER": case "SAME_LOWER": case "VALID": break;
            default: throw new InvalidModelException(node.opType() + " attribute auto_pad has an unknown value '"
                    + autoPad + "'");
        }
        return new Attrs(node.opType(), autoPad, kernel, node.intsAttr("strides", null),
                node.intsAttr("pads", null), node.intsAttr("dilations", null), node.intAttr("ceil_mode", 0) != 0);
    }

    /**
     * Resolves the geometry for an input of the given spatial shape.
     *
     * @param a the attributes
     * @param spatial the input's spatial dimensions
     * @param kernel the kernel's spatial dimensions (from the attribute or the weights)
     * @return the geometry
     */
    static Window resolve(Attrs a, long[] spatial, long[] kernel) {
        int r = spatial.length;
        if (r < 1 || r > 3) {
            throw new NotImplementedException(a.op() + " supports 1 to 3 spatial dimensions, got " + r);
        }
        if (kernel.length != r) {
            throw new InvalidArgumentException(a.op() + " kernel has " + kernel.length + " spatial dimensions, input "
                    + r);
        }
        check(a, "strides", a.strides(), r);
        check(a, "dilations", a.dilations(), r);
        check(a, "pads", a.pads(), 2 * r);
        Window w = new Window(r);
        int lift = 3 - r;
        for (int i = 0; i < 3; i++) {
            w.in[i] = 1;
            w.k[i] = 1;
            w.s[i] = 1;
            w.d[i] = 1;
            w.out[i] = 1;
        }
        for (int i = 0; i < r; i++) {
            int ax = lift + i;
            w.in[ax] = (int) spatial[i];
            w.k[ax] = (int) kernel[i];
            w.s[ax] = a.strides() == null ? 1 : (int) a.strides()[i];
            w.d[ax] = a.dilations() == null ? 1 : (int) a.dilations()[i];
            if (w.k[ax] < 1 || w.s[ax] < 1 || w.d[ax] < 1) {
                throw new InvalidArgumentException(a.op() + " kernel, strides and dilations must be positive");
            }
            int ek = (w.k[ax] - 1) * w.d[ax] + 1;
            int in = w.in[ax];
            int o;
            switch (a.autoPad()) {
                case "SAME_UPPER": case "SAME_LOWER": {
                    o = (in + w.s[ax] - 1) / w.s[ax];
                    int total = Math.max(0, (o - 1) * w.s[ax] + ek - in);
                    int small = total / 2;
                    w.pb[ax] = a.autoPad().equals("SAME_UPPER") ? small : total - small;
                    w.pe[ax] = total - w.pb[ax];
                    break;
                }
                case "VALID":
                    o = in >= ek ? (in - ek) / w.s[ax] + 1 : 0;
                    break;
                default: {
                    w.pb[ax] = a.pads() == null ? 0 : (int) a.pads()[i];
                    w.pe[ax] = a.pads() == null ? 0 : (int) a.pads()[i + r];
                    int span = in + w.pb[ax] + w.pe[ax] - ek;
                    if (span < 0) {
                        o = 0;
                    } else if (a.ceil()) {
                        o = (span + w.s[ax] - 1) / w.s[ax] + 1;
                        if ((o - 1) * w.s[ax] >= in + w.pb[ax]) {
                            o--;
                        }
                    } else {
                        o = span / w.s[ax] + 1;
                    }
                }
            }
            w.out[ax] = o;
            w.outShape[i] = o;
        }
        return w;
    }

    private static void check(Attrs a, String name, long[] v, int len) {
        if (v != null && v.length != len) {
            throw new InvalidArgumentException(a.op() + " attribute " + name + " has " + v.length
                    + " values, expected " + len);
        }
    }

    int inSize() {
        return in[0] * in[1] * in[2];
    }

    int outSize() {
        return out[0] * out[1] * out[2];
    }

    int kernelSize() {
        return k[0] * k[1] * k[2];
    }

    /**
     * The first output index along an axis whose tap {@code t} reads inside the input.
     *
     * @param ax the lifted axis
     * @param t the kernel tap
     * @return the first valid output index (may exceed the output size)
     */
    int firstValid(int ax, int t) {
        int num = pb[ax] - t * d[ax];
        return num <= 0 ? 0 : (num + s[ax] - 1) / s[ax];
    }

    /**
     * One past the last output index along an axis whose tap {@code t} reads inside the input.
     *
     * @param ax the lifted axis
     * @param t the kernel tap
     * @return the end of the valid output range (clamped to the output size)
     */
    int endValid(int ax, int t) {
        int num = in[ax] + pb[ax] - t * d[ax] - 1;
        if (num < 0) {
            return 0;
        }
        return Math.min(out[ax], num / s[ax] + 1);
    }

    @Override
    public String toString() {
        return "Window[in=" + Arrays.toString(in) + ", out=" + Arrays.toString(out) + "]";
    }
}
