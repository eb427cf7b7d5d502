package io.ortex.ep.cpu.ops.tensor;

import io.ortex.api.ElementType;
import io.ortex.api.InvalidArgumentException;
import io.ortex.api.Tensor;
import io.ortex.ep.cpu.ops.support.Values;
import java.math.BigDecimal;

/**
 * Conversions between numbers and text for Cast. Floats print as the shortest text that reads back to the same
 * value, positionally between 1e-4 and 1e16 and in scientific notation ({@code 1.5e-07}) outside, with NaN as
 * {@code NaN} and infinities as {@code INF} and {@code -INF}; integers print in decimal (uint64 unsigned) and bools
 * as {@code 1} and {@code 0}. Parsing accepts those forms, {@code inf}/{@code infinity}/{@code nan} in any case,
 * and {@code true}/{@code false} for bool.
 */
final class NumberText {
    private NumberText() {
    }

    /**
     * Formats every element of a numeric or bool tensor.
     *
     * @param x the tensor
     * @return the texts
     */
    static String[] format(Tensor x) {
        int n = x.size();
        String[] out = new String[n];
        ElementType t = x.type();
        for (int i = 0; i < n; i++) {
            if (t == ElementType.DOUBLE) {
                out[i] = formatDouble(x.doubles()[i], false);
            } else if (t.isFloatingPoint()) {
                out[i] = formatDouble(x.getDouble(i), true);
            } else if (t == ElementType.UINT64) {
                out[i] = Long.toUnsignedString(x.getLong(i));
            } else {
                out[i] = Long.toString(x.getLong(i));
            }
        }
        return out;
    }

    private static String formatDouble(double v, boolean single) {
        if (Double.isNaN(v)) {
            return "NaN";
        }
        if (Double.isInfinite(v)) {
            return v > 0 ? "INF" : "-INF";
        }
        if (v == 0) {
            return 1 / v < 0 ? "-0.0" : "0.0";
        }
        BigDecimal d = new BigDecimal(single ? Float.toString((float) v) : Double.toString(v)).stripTrailingZeros();
        double a = Math.abs(v);
        if (a >= 1e-4 && a < 1e16) {
            String s = d.toPlainString();
            return s.indexOf('.') < 0 ? s + ".0" : s;
        }
        String digits = d.unscaledValue().abs().toString();
        int exponent = digits.length() - 1 - d.scale();
        StringBuilder sb = new StringBuilder();
        if (v < 0) {
            sb.append('-');
        }
        sb.append(digits.charAt(0));
        if (digits.length() > 1) {
            sb.append('.').append(digits, 1, digits.length());
        }
        sb.append('e').append(exponent < 0 ? '-' : '+');
        int e = Math.abs(exponent);
        if (e < 10) {
            sb.append('0');
        }
        return sb.append(e).toString();
    }

    /**
     * Parses texts into a tensor of a numeric or bool type.
     *
     * @param s the texts
     * @param to the target type
     * @param shape the shape
     * @return the tensor
     * @throws InvalidArgumentException when a text is not a number of that type
     */
    static Tensor parse(String[] s, ElementType to, long[] shape) {
        int n = s.length;
        if (to.isFloatingPoint()) {
            double[] d = new double[n];
            for (int i = 0; i < n; i++) {
                d[i] = parseDouble(s[i]);
            }
            return Values.fromDoubles(to, shape, d);
        }
        long[] l = new long[n];
        for (int i = 0; i < n; i++) {
            l[i] = parseLong(s[i], to);
        }
        return Values.fromLongs(to, shape, l);
    }

    private static double parseDouble(String text) {
        String t = text.trim();
        String lower = t.toLowerCase(java.util.Locale.ROOT);
        String body = lower.startsWith("-") || lower.startsWith("+") ? lower.substring(1) : lower;
        if (body.equals("inf") || body.equals("infinity")) {
            return lower.startsWith("-") ? Double.NEGATIVE_INFINITY : Double.POSITIVE_INFINITY;
        }
        if (body.equals("nan")) {
            return Double.NaN;
        }
        try {
            return Double.parseDouble(t);
        } catch (NumberFormatException e) {
            throw new InvalidArgumentException("Cast: '" + text + "' is not a number");
        }
    }

    private static long parseLong(String text, ElementType to) {
        String t = text.trim();
        if (to == ElementType.BOOL) {
            if (t.equalsIgnoreCase("true")) {
                return 1;
            }
            if (t.equalsIgnoreCase("false")) {
                return 0;
            }
            return parseDouble(t) != 0 ? 1 : 0;
        }
        try {
            String digits = t.startsWith("+") ? t.substring(1) : t;
            return to == ElementType.UINT64 ? Long.parseUnsignedLong(digits) : Long.parseLong(digits);
        } catch (NumberFormatException e) {
            double d = parseDouble(t);
            if (Double.isNaN(d) || Double.isInfinite(d)) {
                throw new InvalidArgumentException("Cast: '" + text + "' does not fit " + to);
            }
            return (long) d;
        }
    }
}
