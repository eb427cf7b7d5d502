package io.ortex.ep.cpu.ops.text;

import io.ortex.api.ElementType;
import io.ortex.api.InvalidArgumentException;
import io.ortex.api.InvalidModelException;
import io.ortex.api.NotImplementedException;
import io.ortex.api.Tensor;
import io.ortex.api.spi.NodeView;
import io.ortex.ep.cpu.CpuKernel;
import io.ortex.ep.cpu.ops.support.Broadcast;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * The string kernels: StringNormalizer, StringConcat, StringSplit and RegexFullMatch, over {@code String[]}
 * storage.
 */
final class StringKernels {
    private StringKernels() {
    }

    private static String[] strings(Tensor t, String op, String input) {
        if (t.type() != ElementType.STRING) {
            throw new InvalidArgumentException(op + " input '" + input + "' must be a string tensor, not " + t.type());
        }
        return t.strings();
    }

    /**
     * StringNormalizer (opset 10): drops the {@code stopwords} (compared ignoring case unless
     * {@code is_case_sensitive}) from a {@code [C]} or {@code [1, C]} tensor, then applies
     * {@code case_change_action} (NONE, LOWER or UPPER) with the rules of {@code locale}. When every string is
     * dropped the output holds one empty string.
     *
     * @param node the node
     * @return the kernel
     */
    static CpuKernel normalizer(NodeView node) {
        String action = node.stringAttr("case_change_action", "NONE");
        if (!action.equals("NONE") && !action.equals("LOWER") && !action.equals("UPPER")) {
            throw new InvalidModelException("StringNormalizer attribute 'case_change_action' must be NONE, LOWER or "
                    + "UPPER, not '" + action + "'");
        }
        boolean caseSensitive = node.intAttr("is_case_sensitive", 0) != 0;
        String localeName = node.stringAttr("locale", "en_US");
        Locale locale = localeName.isEmpty() ? Locale.ROOT : Locale.forLanguageTag(localeName.replace('_', '-'));
        Set<String> stops = new HashSet<>();
        for (String s : node.attribute("stopwords").map(a -> a.asStrings()).orElse(List.of())) {
            stops.add(caseSensitive ? s : s.toLowerCase(locale));
        }
        return (in, ctx) -> {
            Tensor x = in[0];
            String[] v = strings(x, "StringNormalizer", "X");
            long[] xs = x.shape();
            if (!(xs.length == 1 || (xs.length == 2 && xs[0] == 1))) {
                throw new InvalidArgumentException("StringNormalizer input 'X' must have shape [C] or [1, C], not "
                        + Tensor.shapeString(xs));
            }
            List<String> kept = new ArrayList<>(v.length);
            for (String s : v) {
                if (stops.isEmpty() || !stops.contains(caseSensitive ? s : s.toLowerCase(locale))) {
                    kept.add(action.equals("LOWER") ? s.toLowerCase(locale)
                            : action.equals("UPPER") ? s.toUpperCase(locale) : s);
                }
            }
            if (kept.isEmpty()) {
                kept.add("");
            }
            long[] os = xs.length == 1 ? new long[] {kept.size()} : new long[] {1, kept.size()};
            return new Tensor[] {Tensor.of(ElementType.STRING, os, kept.toArray(new String[0]))};
        };
    }

    /**
     * StringConcat (opset 20): concatenates two string tensors element-wise, with broadcasting.
     *
     * @param node the node
     * @return the kernel
     */
    static CpuKernel concat(NodeView node) {
        return (in, ctx) -> {
            String[] a = strings(in[0], "StringConcat", "X");
            String[] b = strings(in[1], "StringConcat", "Y");
            long[] os = Broadcast.shape(in[0].shape(), in[1].shape());
            int[] ia = Broadcast.indexMap(in[0].shape(), os);
            int[] ib = Broadcast.indexMap(in[1].shape(), os);
            String[] y = new String[ia.length];
            for (int i = 0; i < y.length; i++) {
                y[i] = a[ia[i]].concat(b[ib[i]]);
            }
            return new Tensor[] {Tensor.of(ElementType.STRING, os, y)};
        };
    }

    /**
     * RegexFullMatch (opset 20): whether each string matches {@code pattern} entirely. The pattern is compiled
     * once with {@link java.util.regex.Pattern}, whose syntax covers the RE2 constructs ONNX models use.
     *
     * @param node the node
     * @return the kernel
     */
    static CpuKernel regexFullMatch(NodeView node) {
        String source = node.stringAttr("pattern", null);
        if (source == null) {
            throw new InvalidModelException("RegexFullMatch attribute 'pattern' is required");
        }
        Pattern pattern;
        try {
            pattern = Pattern.compile(source);
        } catch (PatternSyntaxException e) {
            throw new NotImplementedException("RegexFullMatch attribute 'pattern' '" + source
                    + "' is not supported: " + e.getDescription());
        }
        return (in, ctx) -> {
            String[] x = strings(in[0], "RegexFullMatch", "X");
            boolean[] y = new boolean[x.length];
            for (int i = 0; i < x.length; i++) {
                y[i] = pattern.matcher(x[i]).matches();
            }
            return new Tensor[] {Tensor.of(ElementType.BOOL, in[0].shape(), y)};
        };
    }

    /**
     * StringSplit (opset 20): splits each string at {@code delimiter}, or at runs of whitespace (ignoring leading
     * and trailing whitespace) when it is empty or absent, doing at most {@code maxsplit} splits. Outputs the
     * pieces, padded with empty strings to the longest split ({@code [..., max]}), and the piece counts.
     *
     * @param node the node
     * @return the kernel
     */
    static CpuKernel split(NodeView node) {
        String delimiter = node.stringAttr("delimiter", "");
        long maxsplit = node.intAttr("maxsplit", Long.MAX_VALUE);
        if (maxsplit < 0) {
            throw new InvalidModelException("StringSplit attribute 'maxsplit' must not be negative, not " + maxsplit);
        }
        return (in, ctx) -> {
            String[] x = strings(in[0], "StringSplit", "X");
            List<List<String>> parts = new ArrayList<>(x.length);
            int widest = 0;
            for (String s : x) {
                List<String> p = delimiter.isEmpty() ? splitWhitespace(s, maxsplit) : splitAt(s, delimiter, maxsplit);
                parts.add(p);
                widest = Math.max(widest, p.size());
            }
            long[] xs = in[0].shape();
            long[] os = java.util.Arrays.copyOf(xs, xs.length + 1);
            os[xs.length] = widest;
            String[] y = new String[Tensor.checkedElementCount(os)];
            long[] counts = new long[x.length];
            for (int i = 0; i < x.length; i++) {
                List<String> p = parts.get(i);
                counts[i] = p.size();
                for (int j = 0; j < widest; j++) {
                    y[i * widest + j] = j < p.size() ? p.get(j) : "";
                }
            }
            return new Tensor[] {Tensor.of(ElementType.STRING, os, y), Tensor.of(ElementType.INT64, xs, counts)};
        };
    }

    private static List<String> splitAt(String s, String delimiter, long maxsplit) {
        List<String> out = new ArrayList<>();
        int from = 0;
        while (out.size() < maxsplit) {
            int at = s.indexOf(delimiter, from);
            if (at < 0) {
                break;
            }
            out.add(s.substring(from, at));
            from = at + delimiter.length();
        }
        out.add(s.substring(from));
        return out;
    }

    private static List<String> splitWhitespace(String s, long maxsplit) {
        List<String> out = new ArrayList<>();
        int n = s.length();
        int i = 0;
        while (true) {
            while (i < n && Character.isWhitespace(s.charAt(i))) {
                i++;
            }
            if (i >= n) {
                break;
            }
            if (out.size() == maxsplit) {
                out.add(s.substring(i));
                break;
            }
            int start = i;
            while (i < n && !Character.isWhitespace(s.charAt(i))) {
                i++;
            }
            out.add(s.substring(start, i));
        }
        return out;
    }
}
