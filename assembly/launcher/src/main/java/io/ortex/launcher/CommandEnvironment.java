package io.ortex.launcher;

import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;

/**
 * The environment entries of one command-line verb ({@code --env KEY=VALUE}, repeatable, or {@code --env=KEY=VALUE}),
 * handed to the runtime of the framework that runs that one verb. The launcher starts a framework per verb, so the
 * entries configure that framework's runtime: they go in the framework property {@value #PROPERTY}, in
 * {@link Properties} text, which the runtime reads when it activates. The verb's own parser checks the same options
 * again (a malformed entry is its to report), and refuses {@code --env} where its runtime does not have the entries.
 */
final class CommandEnvironment {
    /** The framework property the runtime reads; the same name as the runtime's constant. */
    static final String PROPERTY = "ortex.runtime.env";

    private static final String OPTION = "--env";

    private CommandEnvironment() {
    }

    /**
     * Collects the {@code --env} entries of a verb's arguments; entries without {@code =} are left to the verb.
     *
     * @param args the verb and its arguments
     * @return the entries in order, a later one replacing an earlier one of the same key
     */
    static Map<String, String> of(List<String> args) {
        Map<String, String> env = new LinkedHashMap<>();
        for (int i = 0; i < args.size(); i++) {
            String a = args.get(i);
            String entry = null;
            if (a.equals(OPTION) && i + 1 < args.size()) {
                entry = args.get(++i);
            } else if (a.startsWith(OPTION + "=")) {
                entry = a.substring(OPTION.length() + 1);
            }
            int eq = entry == null ? -1 : entry.indexOf('=');
            if (eq > 0) {
                env.put(entry.substring(0, eq), entry.substring(eq + 1));
            }
        }
        return env;
    }

    /**
     * Encodes entries as {@link Properties} text, which keeps any character of keys and values.
     *
     * @param env the entries
     * @return the text
     */
    static String encode(Map<String, String> env) {
        Properties p = new Properties();
        p.putAll(env);
        StringWriter w = new StringWriter();
        try {
            p.store(w, null);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return w.toString();
    }
}
