package io.ortex.shell.internal;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Parsed command-line options of one verb: flags, options with a value (repeatable ones keep every value in
 * order), and positional arguments. Options are {@code --name value} or {@code --name=value}.
 */
public final class Options {
    private final Map<String, List<String>> values = new LinkedHashMap<>();
    private final List<String> positional = new ArrayList<>();

    private Options() {
    }

    /**
     * Parses arguments.
     *
     * @param args the arguments after the verb
     * @param flags the options that take no value
     * @param valued the options that take a value
     * @return the parsed options
     * @throws UsageException for an unknown option or a missing value
     */
    public static Options parse(List<String> args, Set<String> flags, Set<String> valued) {
        Options o = new Options();
        for (int i = 0; i < args.size(); i++) {
            String a = args.get(i);
            if (a.startsWith("-") && a.length() > 1 && !isNumber(a)) {
                String name = a;
                String value = null;
                int eq = a.indexOf('=');
                if (a.startsWith("--") && eq > 0) {
                    name = a.substring(0, eq);
                    value = a.substring(eq + 1);
                }
                if (flags.contains(name)) {
                    if (value != null) {
                        throw new UsageException("option " + name + " takes no value");
                    }
                    o.values.computeIfAbsent(name, k -> new ArrayList<>()).add("true");
                } else if (valued.contains(name)) {
                    if (value == null) {
                        if (i + 1 >= args.size()) {
                            throw new UsageException("option " + name + " needs a value");
                        }
                        value = args.get(++i);
                    }
                    o.values.computeIfAbsent(name, k -> new ArrayList<>()).add(value);
                } else {
                    throw new UsageException("unknown option " + name);
                }
            } else {
                o.positional.add(a);
            }
        }
        return o;
    }

    private static boolean isNumber(String s) {
        try {
            Double.parseDouble(s);
            return true;
        } catch (NumberFormatException e) {
            return false;
        }
    }

    /**
     * Tells whether a flag or option was given.
     *
     * @param name the option, such as {@code --json}
     * @return true when present
     */
    public boolean has(String name) {
        return values.containsKey(name);
    }

    /**
     * Gets the last value of an option.
     *
     * @param name the option
     * @param defaultValue the value when absent
     * @return the value
     */
    public String get(String name, String defaultValue) {
        List<String> v = values.get(name);
        return v == null ? defaultValue : v.get(v.size() - 1);
    }

    /**
     * Gets every value of a repeatable option.
     *
     * @param name the option
     * @return the values in order; empty when absent
     */
    public List<String> all(String name) {
        return values.getOrDefault(name, List.of());
    }

    /**
     * Gets an integer option.
     *
     * @param name the option
     * @param defaultValue the value when absent
     * @param min the smallest allowed value
     * @return the value
     * @throws UsageException when it is not an integer or is below {@code min}
     */
    public int getInt(String name, int defaultValue, int min) {
        String v = get(name, null);
        if (v == null) {
            return defaultValue;
        }
        try {
            int n = Integer.parseInt(v.trim());
            if (n < min) {
                throw new UsageException("option " + name + " must be at least " + min + ", got " + v);
            }
            return n;
        } catch (NumberFormatException e) {
            throw new UsageException("option " + name + " needs an integer, got '" + v + "'");
        }
    }

    /**
     * Gets a floating-point option.
     *
     * @param name the option
     * @param defaultValue the value when absent
     * @return the value
     */
    public double getDouble(String name, double defaultValue) {
        String v = get(name, null);
        if (v == null) {
            return defaultValue;
        }
        try {
            double d = Double.parseDouble(v.trim());
            if (!(d >= 0) || Double.isInfinite(d)) {
                throw new UsageException("option " + name + " must be a finite number >= 0, got " + v);
            }
            return d;
        } catch (NumberFormatException e) {
            throw new UsageException("option " + name + " needs a number, got '" + v + "'");
        }
    }

    /**
     * Parses repeatable {@code KEY=VALUE} options into a map.
     *
     * @param name the option
     * @return the entries in order
     */
    public Map<String, String> keyValues(String name) {
        Map<String, String> map = new LinkedHashMap<>();
        for (String kv : all(name)) {
            int eq = kv.indexOf('=');
            if (eq <= 0) {
                throw new UsageException("option " + name + " needs KEY=VALUE, got '" + kv + "'");
            }
            map.put(kv.substring(0, eq), kv.substring(eq + 1));
        }
        return map;
    }

    /**
     * Gets the positional arguments.
     *
     * @return the arguments that are not options
     */
    public List<String> positional() {
        return positional;
    }
}
