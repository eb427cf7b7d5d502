package io.ortex.shell.internal;

/** Helpers for the shell's fixed-width tables, which fit 100 columns. */
final class Table {
    private Table() {
    }

    /**
     * Shortens text to a column's width, keeping its end (the informative part of paths and lists) after an
     * ellipsis.
     *
     * @param text the text
     * @param width the column width, at least 4
     * @return the text, at most {@code width} characters long
     */
    static String fit(String text, int width) {
        if (text.length() <= width) {
            return text;
        }
        return "..." + text.substring(text.length() - (width - 3));
    }

    /**
     * Shortens text to a column's width, keeping its start (the first of a priority list) before an ellipsis.
     *
     * @param text the text
     * @param width the column width, at least 4
     * @return the text, at most {@code width} characters long
     */
    static String fitStart(String text, int width) {
        if (text.length() <= width) {
            return text;
        }
        return text.substring(0, width - 3) + "...";
    }
}
