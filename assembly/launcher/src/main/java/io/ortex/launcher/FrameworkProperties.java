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
 * The framework properties of the distribution, read from {@code conf/config.properties} and then, when it exists,
 * {@code conf/custom.properties}, whose entries replace those of the same name (a container image sets its HTTP
 * address there): values may refer to {@code ${ortex.home}} and to other system properties with {@code ${name}}; a
 * system property of the same name overrides an entry of either file ({@code -Dfelix.fileinstall.poll=500}).
 */
final class FrameworkProperties {
    /** The launcher's own key: the bundle symbolic names started last, in this order (extenders and watchers). */
    static final String START_LAST = "ortex.start.last";
    /** The launcher's own key: the bundle symbolic names started only for the interactive shell. */
    static final String SHELL_ONLY = "ortex.shell.bundles";
    /** The launcher's own key: those of the shell-only bundles that {@code ortex serve} starts (no console). */
    static final String SERVE = "ortex.serve.bundles";

    /** The file of the distribution's framework properties, in {@code conf/}. */
    static final String FILE = "config.properties";
    /** The optional file in {@code conf/} whose entries replace those of {@value #FILE}. */
    static final String CUSTOM_FILE = "custom.properties";

    private static final Pattern VARIABLE = Pattern.compile("\\$\\{([^}]+)}");

    private FrameworkProperties() {
    }

    /**
     * Reads {@value #FILE} of a configuration folder, then {@value #CUSTOM_FILE} over it when that exists.
     *
     * @param conf the {@code conf/} folder
     * @param variables where {@code ${name}} values come from (system properties and {@code ortex.home})
     * @return the entries, in no particular order
     * @throws IOException when a file cannot be read
     */
    static Map<String, String> readAll(Path conf, UnaryOperator<String> variables) throws IOException {
        Map<String, String> out = read(conf.resolve(FILE), variables);
        Path custom = conf.resolve(CUSTOM_FILE);
        if (Files.isRegularFile(custom)) {
            out.putAll(read(custom, variables));
        }
        return out;
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
