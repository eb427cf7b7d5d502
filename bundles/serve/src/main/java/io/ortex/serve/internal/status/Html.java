package io.ortex.serve.internal.status;

import io.ortex.api.Names;

/**
 * Escapes text for HTML and SVG: names taken from models can hold {@code <}, quotes, ampersands and line breaks.
 * Control and direction characters are first made visible ({@link Names#oneLine}), then the markup characters
 * become entities, so the text is safe in element content and in quoted attribute values. Stateless.
 */
final class Html {
    private Html() {
    }

    /**
     * Escapes text for element content or a double- or single-quoted attribute value.
     *
     * @param text the text, possibly {@code null}
     * @return the escaped text
     */
    static String escape(String text) {
        String s = Names.oneLine(String.valueOf(text));
        StringBuilder sb = new StringBuilder(s.length() + 16);
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '&' -> sb.append("&amp;");
                case '<' -> sb.append("&lt;");
                case '>' -> sb.append("&gt;");
                case '"' -> sb.append("&quot;");
                case '\'' -> sb.append("&#39;");
                default -> sb.append(c);
            }
        }
        return sb.toString();
    }
}
