package io.ortex.shell.internal;

import io.ortex.api.Names;
import java.io.PrintStream;
import java.util.Locale;

/**
 * Helpers for the shell's fixed-width tables, which fit 100 columns, and for report lines: text from models, files and
 * EP libraries is printed one line per line, whatever characters it holds ({@link Names#oneLine}).
 */
final class Table {
    private Table() {
    }

    /**
     * Prints one report line, its text escaped so that it stays one line.
     *
     * @param out where it goes
     * @param format the {@link String#format} pattern, without a line end
     * @param args the values
     */
    static void line(PrintStream out, String format, Object... args) {
        out.println(Names.oneLine(String.format(Locale.ROOT, format, args)));
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
        text = Names.oneLine(text);
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
        text = Names.oneLine(text);
        if (text.length() <= width) {
            return text;
        }
        return text.substring(0, width - 3) + "...";
    }
}
