package io.ortex.launcher;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;
import java.util.function.UnaryOperator;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The framework properties of the distribution, read from {@code conf/config.properties}: values may refer to
 * {@code ${ortex.home}} and to other system properties with {@code ${name}}; a system property of the same name
 * overrides an entry ({@code -Dfelix.fileinstall.poll=500}).
 */
final class FrameworkProperties {
    /** The launcher's own key: the bundle symbolic names started last, in this order (extenders and watchers). */
    static final String START_LAST = "ortex.start.last";
    /** The launcher's own key: the bundle symbolic names started only for the interactive shell. */
    static final String SHELL_ONLY = "ortex.shell.bundles";

    private static final Pattern VARIABLE = Pattern.compile("\\$\\{([^}]+)}");

    private FrameworkProperties() {
    }

    /**
     * Reads the properties file and resolves its variables.
     *
     * @param file the {@code config.properties} file
     * @param variables where {@code ${name}} values come from (system properties and {@code ortex.home})
     * @return the entries, in no particular order
     * @throws IOException when the file cannot be read
     */
    static Map<String, String> read(Path file, UnaryOperator<String> variables) throws IOException {
        Properties p = new Properties();
        try (InputStream in = Files.newInputStream(file)) {
            p.load(in);
        }
        Map<String, String> out = new LinkedHashMap<>();
        for (String key : p.stringPropertyNames()) {
            String override = variables.apply(key);
            out.put(key, override != null ? override : substitute(p.getProperty(key), variables, file, key));
        }
        return out;
    }

    /**
     * Replaces each {@code ${name}} by its value.
     *
     * @param value the text
     * @param variables the values
     * @param file the file, for the error message
     * @param key the entry, for the error message
     * @return the text with its variables replaced
     * @throws IllegalArgumentException naming the file, entry and variable when a variable has no value
     */
    static String substitute(String value, UnaryOperator<String> variables, Path file, String key) {
        Matcher m = VARIABLE.matcher(value);
        StringBuilder sb = new StringBuilder();
        while (m.find()) {
            String v = variables.apply(m.group(1));
            if (v == null) {
                throw new IllegalArgumentException(file + ": " + key + " refers to ${" + m.group(1)
                        + "}, which has no value");
            }
            m.appendReplacement(sb, Matcher.quoteReplacement(v));
        }
        m.appendTail(sb);
        return sb.toString();
    }
}
