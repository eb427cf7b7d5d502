package io.ortex.api;

/**
 * Renders text taken from models and files (node, value, initializer and file names, attribute strings) safely in
 * messages and reports: a name can hold a line break, a terminal escape sequence or a NUL byte, and printed raw it
 * would break the one-line error rule, forge extra lines or drive the reader's terminal.
 *
 * <p>{@link #quote} and {@link #escape} escape the backslash, the single quote and every character that moves the
 * cursor or changes how text reads: C0 and C1 controls, DEL, the Unicode line and paragraph separators, the
 * bidirectional overrides and isolates, and unpaired surrogates. {@link #oneLine} escapes only those characters and
 * leaves backslashes alone, so that applying it to text that was escaped already changes nothing; every
 * {@link OrtexException} message passes through it.
 *
 * <p>Stateless and thread safe.
 */
public final class Names {
    /** The longest name {@link #quote} shows in full; longer ones are cut, saying how long they are. */
    public static final int MAX_SHOWN = 256;
    /** The longest message {@link #oneLine} keeps; longer ones are cut, saying how much was left out. */
    public static final int MAX_MESSAGE = 16_384;

    private Names() {
    }

    /**
     * Quotes a name for a message: {@code 'name'}, escaped, and cut after {@value #MAX_SHOWN} characters.
     *
     * @param name the name, possibly {@code null}
     * @return the quoted name ({@code 'null'} for {@code null})
     */
    public static String quote(String name) {
        if (name == null) {
            return "'null'";
        }
        String shown = name.length() > MAX_SHOWN ? name.substring(0, MAX_SHOWN) : name;
        String escaped = escape(shown);
        return name.length() > MAX_SHOWN ? "'" + escaped + "...' (" + name.length() + " characters)"
                : "'" + escaped + "'";
    }

    /**
     * Quotes a value's text for a message, as {@link #quote(String)} does its {@link String#valueOf}.
     *
     * @param value the value, possibly {@code null}
     * @return the quoted text
     */
    public static String quote(Object value) {
        return quote(String.valueOf(value));
    }

    /**
     * Escapes a name: the backslash and the single quote with a backslash, the characters listed in the class
     * description as {@code \n}, {@code \r}, {@code \t}, {@code \xHH} or {@code \}{@code uHHHH}.
     *
     * @param text the text
     * @return the escaped text, unchanged when nothing needed escaping
     */
    public static String escape(String text) {
        return escape(text, true);
    }

    /**
     * Escapes the characters that break a line or drive a terminal, leaving backslashes and quotes as they are, and
     * cuts text longer than {@value #MAX_MESSAGE} characters. Idempotent.
     *
     * @param text the text, possibly {@code null}
     * @return the text fit for one line, or {@code null} for {@code null}
     */
    public static String oneLine(String text) {
        if (text == null) {
            return null;
        }
        String cut = text.length() > MAX_MESSAGE ? text.substring(0, MAX_MESSAGE) + "... ("
                + (text.length() - MAX_MESSAGE) + " more characters)" : text;
        return escape(cut, false);
    }

    private static String escape(String text, boolean quotes) {
        int first = firstToEscape(text, quotes);
        if (first < 0) {
            return text;
        }
        StringBuilder sb = new StringBuilder(text.length() + 16).append(text, 0, first);
        for (int i = first; i < text.length(); i++) {
            char c = text.charAt(i);
            if (!needsEscape(text, i, quotes)) {
                sb.append(c);
                if (Character.isHighSurrogate(c) && i + 1 < text.length()) {
                    sb.append(text.charAt(++i));
                }
                continue;
            }
            switch (c) {
                case '\n' -> sb.append("\\n");
                case '\r' -> sb.append("\\r");
                case '\t' -> sb.append("\\t");
                case '\\' -> sb.append("\\\\");
                case '\'' -> sb.append("\\'");
                default -> {
                    if (c < 0x100) {
                        sb.append(String.format("\\x%02x", (int) c));
                    } else {
                        sb.append(String.format("\\u%04x", (int) c));
                    }
                }
            }
        }
        return sb.toString();
    }

    private static int firstToEscape(String text, boolean quotes) {
        for (int i = 0; i < text.length(); i++) {
            if (needsEscape(text, i, quotes)) {
                return i;
            }
            if (Character.isHighSurrogate(text.charAt(i)) && i + 1 < text.length()
                    && Character.isLowSurrogate(text.charAt(i + 1))) {
                i++;
            }
        }
        return -1;
    }

    private static boolean needsEscape(String text, int i, boolean quotes) {
        char c = text.charAt(i);
        if (c == '\\' || c == '\'') {
            return quotes;
        }
        if (c < 0x20 || (c >= 0x7f && c <= 0x9f)) {
            return true;
        }
        if (c == '\u2028' || c == '\u2029' || (c >= '\u202a' && c <= '\u202e') || (c >= '\u2066' && c <= '\u2069')
                || c == '\u200e' || c == '\u200f' || c == '\u061c') {
            return true;
        }
        if (Character.isHighSurrogate(c)) {
            return i + 1 >= text.length() || !Character.isLowSurrogate(text.charAt(i + 1));
        }
        return Character.isLowSurrogate(c);
    }
}
