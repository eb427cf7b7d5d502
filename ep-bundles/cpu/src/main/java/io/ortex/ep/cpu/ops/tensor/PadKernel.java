package io.ortex.ep.cpu.ops.tensor;

import io.ortex.api.ElementType;
import io.ortex.api.InvalidArgumentException;
import io.ortex.api.InvalidModelException;
import io.ortex.api.NotImplementedException;
import io.ortex.api.Tensor;
import io.ortex.api.spi.NodeView;
import io.ortex.ep.cpu.CpuKernel;
import io.ortex.ep.cpu.ops.support.ElementArrays;
import io.ortex.ep.cpu.ops.support.Shapes;
import io.ortex.ep.cpu.ops.support.Values;

/**
 * Pad in modes constant, reflect, edge and wrap. Pads come from the attribute {@code pads} (opset 2 to 10,
 * {@code paddings} in opset 1) or the inputs {@code pads}, {@code constant_value} and (opset 18+) {@code axes}.
 * Negative pads crop first, as ONNX's reference does; the other modes then index the cropped tensor.
 *
 * <p>Each output row (innermost axis) is either all constant or copied from one source row through runs of
 * consecutive source elements, so the interior is moved with {@link System#arraycopy}.
 */
final class PadKernel {
    private enum Mode { CONSTANT, REFLECT, EDGE, WRAP }

    private PadKernel() {
    }

    /**
     * Creates the kernel for opsets 1 to 10, whose pads and constant value are attributes.
     *
     * @param node the node
     * @param padsAttribute the name of the pads attribute: {@code paddings} in opset 1, {@code pads} from 2
     * @return the kernel
     */
    static CpuKernel fromAttributes(NodeView node, String padsAttribute) {
        Mode mode = mode(node, false);
        long[] pads = Shapes.requiredInts(node, padsAttribute);
        float value = node.floatAttr("value", 0f);
        return (in, ctx) -> {
            Tensor x = in[0];
            Tensor constant = x.type() == ElementType.STRING ? null
                    : Values.fromDoubles(x.type(), new long[0], new double[] {value});
            return new Tensor[] {pad(x, pads, constant, mode)};
        };
    }

    /**
     * Creates the kernel from opset 11, whose pads, constant value and (opset 18 on) axes are inputs.
     *
     * @param node the node
     * @param hasAxes whether the node's opset has the optional input {@code axes} (18 on)
     * @param hasWrap whether the node's opset has the mode {@code wrap} (19 on)
     * @return the kernel
     */
    static CpuKernel fromInputs(NodeView node, boolean hasAxes, boolean hasWrap) {
        Mode mode = mode(node, hasWrap);
        return (in, ctx) -> {
            Tensor x = in[0];
            long[] padsIn = Shapes.longs(in[1], "pads");
            Tensor constant = Shapes.optional(in, 2);
            Tensor axesT = hasAxes ? Shapes.optional(in, 3) : null;
            long[] pads = padsIn;
            int rank = x.rank();
            if (axesT != null) {
                long[] axes = Shapes.longs(axesT, "axes");
                if (padsIn.length != 2 * axes.length) {
                    throw new InvalidArgumentException("pads has " + padsIn.length + " entries for " + axes.length
                            + " axes");
                }
                pads = new long[2 * rank];
                for (int i = 0; i < axes.length; i++) {
                    int a = Shapes.axis(axes[i], rank, "axes entry");
                    pads[a] = padsIn[i];
                    pads[a + rank] = padsIn[i + axes.length];
                }
            }
            if (constant != null && constant.size() == 0) {
                constant = null;
            }
            if (constant != null && constant.type() != x.type()) {
                throw new InvalidArgumentException("constant_value is " + constant.type() + ", data is " + x.type());
            }
            return new Tensor[] {pad(x, pads, constant, mode)};
        };
    }

    private static Mode mode(NodeView node, boolean hasWrap) {
        String modeName = node.stringAttr("mode", "constant");
        switch (modeName) {
            case "constant": return Mode.CONSTANT;
            case "reflect": return Mode.REFLECT;
            case "edge": return Mode.EDGE;
            case "wrap":
                if (!hasWrap) {
                    throw new InvalidModelException("attribute 'mode' value 'wrap' needs opset 19");
                }
                return Mode.WRAP;
            default: throw new NotImplementedException("attribute 'mode' value '" + modeName + "' is not supported");
        }
    }

    static Tensor pad(Tensor x, long[] pads, Tensor constant, Mode mode) {
        long[] s = x.shape();
        int rank = s.length;
        if (pads.length != 2 * rank) {
            throw new InvalidArgumentException("pads has " + pads.length + " entries, expected " + 2 * rank);
        }
        long[] out = new long[rank];
        // per axis: the source index of each output position, -1 for the constant
        int[][] maps = new int[rank][];
        for (int a = 0; a < rank; a++) {
            long before = pads[a];
            long after = pads[a + rank];
            long cropBegin = Math.max(0, -before);
            long cropped = s[a] - cropBegin - Math.max(0, -after);
            if (cropped < 0) {
                throw new InvalidArgumentException("negative pads on axis " + a + " remove more than its " + s[a]
                        + " elements");
            }
            long padBegin = Math.max(0, before);
            long n = cropped + padBegin + Math.max(0, after);
            out[a] = n;
            if (cropped == 0 && n > 0 && mode != Mode.CONSTANT) {
                throw new InvalidArgumentException("cannot pad an empty axis " + a + " in mode "
                        + mode.name().toLowerCase(java.util.Locale.ROOT));
            }
            int[] map = new int[(int) n];
            for (int o = 0; o < n; o++) {
                long p = o - padBegin;
                long src;
                if (p >= 0 && p < cropped) {
                    src = p;
                } else {
                    switch (mode) {
                        case CONSTANT: src = -1; break;
                        case EDGE: src = p < 0 ? 0 : cropped - 1; break;
                        case WRAP: src = Math.floorMod(p, cropped); break;
                        default: src = reflect(p, cropped); break;
                    }
                }
                map[o] = src < 0 ? -1 : (int) (src + cropBegin);
            }
            maps[a] = map;
        }
        int total = Tensor.checkedElementCount(out);
        Object dst = ElementArrays.allocate(x.type(), total);
        Tensor c = constant;
        if (c == null && x.type() != ElementType.STRING) {
            c = Tensor.zeros(x.type());
        } else if (c == null) {
            c = Tensor.ofStrings(new String[] {""});
        }
        if (total == 0) {
            return Tensor.of(x.type(), out, dst);
        }
        if (rank == 0) {
            System.arraycopy(x.data(), 0, dst, 0, 1);
            return Tensor.of(x.type(), out, dst);
        }
        Object src = x.data();
        Object cv = c.data();
        int[] inStrides = Shapes.strides(s);
        int[] lastMap = maps[rank - 1];
        int inner = lastMap.length;
        int[][] runs = runs(lastMap);
        int rows = total / inner;
        int[] counter = new int[rank - 1];
        for (int r = 0; r < rows; r++) {
            int o = r * inner;
            int base = 0;
            boolean constantRow = false;
            for (int a = 0; a < rank - 1; a++) {
                int m = maps[a][counter[a]];
                if (m < 0) {
                    constantRow = true;
                    break;
                }
                base += m * inStrides[a];
            }
            if (constantRow) {
                ElementArrays.fill(dst, o, o + inner, cv, 0);
            } else {
                for (int[] run : runs) {
                    if (run[1] < 0) {
                        ElementArrays.fill(dst, o + run[0], o + run[0] + run[2], cv, 0);
                    } else {
                        System.arraycopy(src, base + run[1], dst, o + run[0], run[2]);
                    }
                }
            }
            for (int a = rank - 2; a >= 0; a--) {
                if (++counter[a] < out[a]) {
                    break;
                }
                counter[a] = 0;
            }
        }
        return Tensor.of(x.type(), out, dst);
    }

    private static long reflect(long p, long n) {
        if (n == 1) {
            return 0;
        }
        long period = 2 * (n - 1);
        long m = Math.floorMod(p, period);
        return m < n ? m : period - m;
    }

    /** Splits a row map into runs {dstStart, srcStart or -1, length} of consecutive sources or constants. */
    private static int[][] runs(int[] map) {
        java.util.List<int[]> runs = new java.util.ArrayList<>();
        int i = 0;
        while (i < map.length) {
            int j = i + 1;
            if (map[i] < 0) {
                while (j < map.length && map[j] < 0) {
                    j++;
                }
            } else {
                while (j < map.length && map[j] == map[j - 1] + 1) {
                    j++;
                }
            }
            runs.add(new int[] {i, map[i], j - i});
            i = j;
        }
        return runs.toArray(new int[0][]);
    }
}
