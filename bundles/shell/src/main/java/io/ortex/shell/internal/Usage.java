package io.ortex.shell.internal;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The usage text of every verb, in one place: {@code ortex help VERB}, {@code ortex VERB --help} and the Gogo
 * descriptors of the {@code ortex:*} commands (whose annotations take these compile-time constants) print the same
 * words. Stateless.
 */
public final class Usage {
    /** The EP options the shell's commands take (its runtime is shared, so no {@code --env} or {@code --register}). */
    public static final String SHELL_EP_OPTIONS = "[--policy P | --ep NAME...] [--config KEY=VALUE]... [--threads N]";
    /** The arguments of {@code run}. */
    public static final String RUN = "MODEL [--input NAME=FILE.pb]... [--inputs DIR] [--shape NAME=AxB]..."
            + " [--output-dir DIR] [--random-inputs] [--repeat N] [--warmup N] [--threads N] [--seed N]"
            + " [--profile FILE] [--json] [EP options]";
    /** The arguments of {@code test}. */
    public static final String TEST = "PATH... [--rtol R] [--atol A] [--report FILE] [--threads N] [EP options]";
    /** The arguments of {@code compile}. */
    public static final String COMPILE = "MODEL -o OUT [--embed] [--flags error-if-no-nodes-compiled,"
            + "error-if-output-exists] [EP options] | MODEL... -o DIR --share [--embed] [--flags ...] [EP options]";
    /** The arguments of {@code inspect}. */
    public static final String INSPECT = "MODEL [--json] [--env KEY=VALUE]... [--register NAME=JAR]...";
    /** The arguments of {@code devices} and {@code eps}. */
    public static final String DEVICES = "[--json] [--env KEY=VALUE]... [--register NAME=JAR]...";
    /** The arguments of {@code demo}. */
    public static final String DEMO = "[--verbose]";
    /** The EP options of the command line. */
    public static final String EP_OPTIONS = "EP options: [--policy P | --ep NAME...] [--config KEY=VALUE]..."
            + " [--env KEY=VALUE]... [--register NAME=JAR]...";

    /** What {@code run} does. */
    public static final String RUN_WHAT = "runs MODEL on given or seeded random inputs and reports outputs, EPs and"
            + " latency";
    /** What {@code test} does. */
    public static final String TEST_WHAT = "runs ONNX backend test cases (model.onnx with test_data_set_N) and prints"
            + " PASS, FAIL or ERROR per case, then the counts";
    /** What {@code compile} does. */
    public static final String COMPILE_WHAT = "compiles MODEL for the selected EPs into an EPContext model OUT; with"
            + " --share, compiles every MODEL with the same EPs and options into DIR/<model>_ctx.onnx and one shared"
            + " context binary (ep.share_ep_contexts, the last with ep.stop_share_ep_contexts), and reports the"
            + " files, their sizes and the bytes sharing saved";
    /** What {@code inspect} does. */
    public static final String INSPECT_WHAT = "what a model holds: opsets, inputs and outputs, nodes by op,"
            + " EPContext nodes (source EP, embed mode, main context, context binary present or missing) and, for"
            + " each EP device here, the verdict on the model's compatibility string";
    /** What {@code demo} does. */
    public static final String DEMO_WHAT = "the end-to-end tour on all-MiniLM-L6-v2";

    private static final Map<String, String[]> VERBS = new LinkedHashMap<>();

    static {
        VERBS.put("shell", new String[] {"", "the OSGi framework with the Gogo shell (ortex:* commands); also with no"
                + " verb"});
        VERBS.put("demo", new String[] {DEMO, DEMO_WHAT});
        VERBS.put("devices", new String[] {DEVICES, "hardware devices"});
        VERBS.put("eps", new String[] {DEVICES, "EP devices with vendor, type, version and state"});
        VERBS.put("run", new String[] {RUN, RUN_WHAT});
        VERBS.put("test", new String[] {TEST, TEST_WHAT});
        VERBS.put("compile", new String[] {COMPILE, COMPILE_WHAT});
        VERBS.put("inspect", new String[] {INSPECT, INSPECT_WHAT});
    }

    private Usage() {
    }

    /**
     * Tells whether a verb has usage text.
     *
     * @param verb the verb
     * @return true for a known verb
     */
    public static boolean known(String verb) {
        return VERBS.containsKey(verb);
    }

    /**
     * Gives a verb's usage: the synopsis, what it does, and the EP options where it takes them.
     *
     * @param verb a known verb
     * @return the text, lines separated by the platform's line separator
     */
    public static String of(String verb) {
        String[] u = VERBS.get(verb);
        StringBuilder b = new StringBuilder("usage: ortex ").append(verb);
        if (!u[0].isEmpty()) {
            b.append(' ').append(u[0]);
        }
        b.append(System.lineSeparator()).append("  ").append(u[1]);
        if (u[0].contains("[EP options]")) {
            b.append(System.lineSeparator()).append(EP_OPTIONS);
            b.append(System.lineSeparator()).append("policies: DEFAULT PREFER_CPU PREFER_NPU PREFER_GPU"
                    + " MAX_PERFORMANCE MAX_EFFICIENCY MIN_OVERALL_POWER");
        }
        b.append(System.lineSeparator()).append("every verb takes --verbose (stack traces on errors) and --help");
        return b.toString();
    }
}
