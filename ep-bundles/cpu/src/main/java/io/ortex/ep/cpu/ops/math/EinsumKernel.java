package io.ortex.ep.cpu.ops.math;

import io.ortex.api.ElementType;
import io.ortex.api.InvalidArgumentException;
import io.ortex.api.InvalidModelException;
import io.ortex.api.NotImplementedException;
import io.ortex.api.Tensor;
import io.ortex.api.spi.NodeView;
import io.ortex.ep.cpu.CpuKernel;
import io.ortex.ep.cpu.ops.support.Values;
import io.ortex.ep.cpu.ops.support.WorkingArrays;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * Einsum in its general form: any number of operands, repeated labels within a term (diagonals), ellipsis with
 * broadcasting, and implicit output (the ellipsis axes, then the labels used once, alphabetically). Each output
 * element sums the product of the operands over every combination of the labels not in the output; float types
 * accumulate in double, integer types in 64-bit integers.
 */
final class EinsumKernel {
    /** The first character used to name the axes covered by an ellipsis, outside the letters ONNX allows. */
    private static final char ELLIPSIS_BASE = '\u0100';

    private EinsumKernel() {
    }

    static CpuKernel create(NodeView node) {
        String equation = node.stringAttr("equation", null);
        if (equation == null) {
            throw new InvalidModelException("Einsum requires the attribute equation");
        }
        String eq = equation.replace(" ", "");
        return (in, ctx) -> new Tensor[] {einsum(eq, in)};
    }

    private static Tensor einsum(String eq, Tensor[] in) {
        int arrow = eq.indexOf("->");
        String lhs = arrow < 0 ? eq : eq.substring(0, arrow);
        String[] terms = lhs.split(",", -1);
        if (terms.length != in.length) {
            throw new InvalidArgumentException("Einsum equation '" + eq + "' has " + terms.length + " operands, got "
                    + in.length + " inputs");
        }
        ElementType type = in[0].type();
        for (Tensor t : in) {
            if (t.type() != type) {
                throw new InvalidArgumentException("Einsum inputs have different types " + type + " and " + t.type());
            }
        }
        if (type == ElementType.STRING || type == ElementType.BOOL) {
            throw new NotImplementedException("Einsum is not implemented for type " + type);
        }
        int ellipsisRank = 0;
        String[] labels = new String[in.length];
        for (int i = 0; i < in.length; i++) {
            labels[i] = expand(terms[i], in[i].rank(), eq);
            ellipsisRank = Math.max(ellipsisRank, ellipsisRankOf(terms[i], in[i].rank()));
        }
        // sizes of every label, broadcasting 1 against the others
        Map<Character, Long> sizes = new LinkedHashMap<>();
        for (int i = 0; i < in.length; i++) {
            for (int a = 0; a < labels[i].length(); a++) {
                char c = labels[i].charAt(a);
                long d = in[i].dim(a);
                Long prev = sizes.get(c);
                if (prev == null || prev == 1) {
                    sizes.put(c, d);
                } else if (d != 1 && d != prev) {
                    throw new InvalidArgumentException("Einsum label '" + printable(c) + "' has sizes " + prev
                            + " and " + d);
                }
            }
        }
        String out;
        if (arrow >= 0) {
            out = expand(eq.substring(arrow + 2), ellipsisRank + letters(eq.substring(arrow + 2)), eq);
        } else {
            StringBuilder sb = new StringBuilder();
            for (int e = 0; e < ellipsisRank; e++) {
                sb.append((char) (ELLIPSIS_BASE + 64 - ellipsisRank + e));
            }
            TreeSet<Character> once = new TreeSet<>();
            for (char c : lhs.toCharArray()) {
                if (Character.isLetter(c) && lhs.chars().filter(x -> x == c).count() == 1) {
                    once.add(c);
                }
            }
            once.forEach(sb::append);
            out = sb.toString();
        }
        List<Character> all = new ArrayList<>();
        for (char c : out.toCharArray()) {
            if (!sizes.containsKey(c)) {
                throw new InvalidArgumentException("Einsum output label '" + printable(c) + "' is not in any input");
            }
            if (all.contains(c)) {
                throw new InvalidArgumentException("Einsum output label '" + printable(c) + "' is repeated");
            }
            all.add(c);
        }
        int outRank = all.size();
        for (char c : sizes.keySet()) {
            if (!all.contains(c)) {
                all.add(c);
            }
        }
        int nl = all.size();
        long[] dims = new long[nl];
        for (int l = 0; l < nl; l++) {
            dims[l] = sizes.get(all.get(l));
        }
        // per input, its stride along every label (summed for repeated labels, 0 when broadcast)
        int[][] strides = new int[in.length][nl];
        for (int i = 0; i < in.length; i++) {
            long[] shape = in[i].shape();
            int stride = 1;
            for (int a = shape.length - 1; a >= 0; a--) {
                int l = all.indexOf(labels[i].charAt(a));
                if (shape[a] != 1) {
                    strides[i][l] += stride;
                }
                stride *= (int) shape[a];
            }
        }
        long[] outShape = Arrays.copyOf(dims, outRank);
        int outSize = Tensor.checkedElementCount(outShape);
        long inner = 1;
        for (int l = outRank; l < nl; l++) {
            inner *= dims[l];
        }
        boolean integer = type.isInteger();
        double[] yd = new double[integer ? 0 : outSize];
        long[] yl = new long[integer ? outSize : 0];
        double[][] vd = new double[in.length][];
        long[][] vl = new long[in.length][];
        for (int i = 0; i < in.length; i++) {
            if (integer) {
                vl[i] = WorkingArrays.longs(in[i]);
            } else {
                vd[i] = WorkingArrays.doubles(in[i]);
            }
        }
        int[] counter = new int[nl];
        int[] offs = new int[in.length];
        long total = (long) outSize * inner;
        for (long step = 0; step < total; step++) {
            int o = (int) (step / inner);
            if (integer) {
                long p = 1;
                for (int i = 0; i < in.length; i++) {
                    p *= vl[i][offs[i]];
                }
                yl[o] += p;
            } else {
                double p = 1;
                for (int i = 0; i < in.length; i++) {
                    p *= vd[i][offs[i]];
                }
                yd[o] += p;
            }
            for (int l = nl - 1; l >= 0; l--) {
                counter[l]++;
                for (int i = 0; i < in.length; i++) {
                    offs[i] += strides[i][l];
                }
                if (counter[l] < dims[l]) {
                    break;
                }
                for (int i = 0; i < in.length; i++) {
                    offs[i] -= strides[i][l] * counter[l];
                }
                counter[l] = 0;
            }
        }
        return integer ? Values.fromLongs(type, outShape, yl) : Values.fromDoubles(type, outShape, yd);
    }

    private static int letters(String term) {
        int n = 0;
        for (char c : term.toCharArray()) {
            if (Character.isLetter(c)) {
                n++;
            }
        }
        return n;
    }

    private static int ellipsisRankOf(String term, int rank) {
        return term.contains("...") ? rank - letters(term) : 0;
    }

    /** Replaces the ellipsis of a term by one label per axis it covers, right-aligned across operands. */
    private static String expand(String term, int rank, String eq) {
        int dots = term.indexOf("...");
        int letters = letters(term);
        for (char c : term.replace("...", "").toCharArray()) {
            if (!Character.isLetter(c)) {
                throw new InvalidModelException("Einsum equation '" + eq + "' has an invalid character '" + c + "'");
            }
        }
        if (dots < 0) {
            if (letters != rank) {
                throw new InvalidArgumentException("Einsum term '" + term + "' has " + letters + " labels for rank "
                        + rank);
            }
            return term;
        }
        int e = rank - letters;
        if (e < 0) {
            throw new InvalidArgumentException("Einsum term '" + term + "' has more labels than rank " + rank);
        }
        StringBuilder sb = new StringBuilder(term.substring(0, dots));
        for (int i = 0; i < e; i++) {
            // right-aligned: the last ellipsis axis of every operand shares one label
            sb.append((char) (ELLIPSIS_BASE + 64 - e + i));
        }
        sb.append(term.substring(dots + 3));
        return sb.toString();
    }

    private static String printable(char c) {
        return c >= ELLIPSIS_BASE ? "..." : String.valueOf(c);
    }
}
