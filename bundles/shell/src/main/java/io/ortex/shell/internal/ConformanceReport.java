package io.ortex.shell.internal;

import io.ortex.api.ElementType;
import io.ortex.api.ErrorCode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Writes the results of {@code ortex test} as a Markdown document: a summary table (passed, failed, total; and the
 * same for the cases whose ops are all core ops, when the core op list is known), then one row per case that did
 * not pass, with the reason classified and the message. Immutable and thread safe.
 */
public final class ConformanceReport {
    /** Why a case did not pass. */
    public enum Reason {
        /** No kernel for an op at the model's opset. */
        OP_UNSUPPORTED("op unsupported"),
        /** An attribute value that is not implemented. */
        ATTRIBUTE_UNSUPPORTED("attribute unsupported"),
        /** An element type that is not implemented. */
        TYPE_UNSUPPORTED("type unsupported"),
        /** The case ran but an output differs from the expected one. */
        WRONG_RESULT("wrong result"),
        /** Anything else (a bad model, an unexpected exception, ...). */
        OTHER("other");

        private final String label;

        Reason(String label) {
            this.label = label;
        }

        /**
         * Gets the label used in the report.
         *
         * @return the label
         */
        public String label() {
            return label;
        }
    }

    private static final Pattern OP_MISSING = Pattern.compile(
            "is not supported by any EP|has no CPU kernel|\\(op [^,]+, opset \\d+\\)");
    private static final Pattern ATTRIBUTE = Pattern.compile("\\battribute\\b", Pattern.CASE_INSENSITIVE);
    private static final Pattern TYPE = typePattern();

    private final Set<String> coreOps;
    private final Map<String, List<String>> caseOps;

    /**
     * Makes a report.
     *
     * @param coreOps the core op types, or {@code null} when unknown (no core summary row)
     * @param caseOps the op types of each case, by case folder name; cases not listed count as not core
     */
    public ConformanceReport(Set<String> coreOps, Map<String, List<String>> caseOps) {
        this.coreOps = coreOps == null ? null : Set.copyOf(coreOps);
        this.caseOps = Map.copyOf(caseOps);
    }

    /**
     * Makes the report for test paths: when a path holds {@code INDEX.tsv} (the op types of each case, as the
     * shared ONNX node tests do) and {@code CORE_OPS.txt} lies beside that path, the core summary row is added.
     *
     * @param paths the paths given to {@code ortex test}
     * @return the report
     */
    public static ConformanceReport forPaths(List<Path> paths) {
        Set<String> core = null;
        Map<String, List<String>> ops = new HashMap<>();
        for (Path p : paths) {
            Path index = p.resolve("INDEX.tsv");
            Path parent = p.toAbsolutePath().normalize().getParent();
            Path coreFile = parent == null ? null : parent.resolve("CORE_OPS.txt");
            if (!Files.isRegularFile(index) || coreFile == null || !Files.isRegularFile(coreFile)) {
                continue;
            }
            try {
                if (core == null) {
                    core = new HashSet<>();
                }
                for (String line : Files.readAllLines(coreFile)) {
                    if (!line.isBlank()) {
                        core.add(line.strip());
                    }
                }
                ops.putAll(readIndex(Files.readAllLines(index)));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return new ConformanceReport(core, ops);
    }

    /**
     * Reads the case to op types table of an {@code INDEX.tsv} (a header line, then the case name and the
     * comma-separated op types in the first two tab-separated columns).
     *
     * @param lines the file's lines
     * @return the op types of each case
     */
    static Map<String, List<String>> readIndex(List<String> lines) {
        Map<String, List<String>> ops = new HashMap<>();
        for (int i = 1; i < lines.size(); i++) {
            String[] cols = lines.get(i).split("\t");
            if (cols.length >= 2) {
                ops.put(cols[0], List.of(cols[1].split(",")));
            }
        }
        return ops;
    }

    /**
     * Classifies why a case did not pass, from its outcome, error kind and message: a not-implemented error that
     * names an op missing at an opset, else one that names an attribute, else one that names a type.
     *
     * @param r the case's result
     * @return the reason, or {@code null} for a case that passed
     */
    public static Reason classify(TestCommand.CaseResult r) {
        switch (r.outcome()) {
            case PASS:
                return null;
            case FAIL:
                return Reason.WRONG_RESULT;
            default:
                break;
        }
        if (!ErrorCode.NOT_IMPLEMENTED.name().equals(r.errorKind())) {
            return Reason.OTHER;
        }
        String msg = r.detail();
        if (OP_MISSING.matcher(msg).find()) {
            return Reason.OP_UNSUPPORTED;
        }
        if (ATTRIBUTE.matcher(msg).find()) {
            return Reason.ATTRIBUTE_UNSUPPORTED;
        }
        if (TYPE.matcher(msg).find()) {
            return Reason.TYPE_UNSUPPORTED;
        }
        return Reason.OTHER;
    }

    /**
     * Formats the results.
     *
     * @param results the results of every case, in order
     * @return the Markdown document
     */
    public String markdown(List<TestCommand.CaseResult> results) {
        int passed = 0;
        int corePassed = 0;
        int coreTotal = 0;
        List<TestCommand.CaseResult> notPassed = new ArrayList<>();
        Map<Reason, Integer> byReason = new java.util.EnumMap<>(Reason.class);
        for (TestCommand.CaseResult r : results) {
            boolean pass = r.outcome() == TestCommand.Outcome.PASS;
            boolean core = isCore(r.name());
            passed += pass ? 1 : 0;
            coreTotal += core ? 1 : 0;
            corePassed += core && pass ? 1 : 0;
            if (!pass) {
                notPassed.add(r);
                byReason.merge(classify(r), 1, Integer::sum);
            }
        }
        StringBuilder sb = new StringBuilder();
        sb.append("# Conformance report\n\n");
        sb.append("Generated by `ortex test`: each case's outputs are compared with the expected ones. "
                + "Element type and "
                + "shape must match exactly, strings and integers must be equal, and floating-point elements must "
                + "satisfy |actual - expected| <= atol + rtol * |expected| (NaN equals NaN), with rtol "
                + TestCommand.DEFAULT_RTOL + " and atol " + TestCommand.DEFAULT_ATOL + " for float32 and float64, "
                + "and both " + (int) TestCommand.HALF_PRECISION_FACTOR + " times wider for float16 and bfloat16 "
                + "outputs (their own rounding step is 1e-3 and 8e-3 relative). 8-bit floats compare at the same "
                + "tolerances, which makes them exact.\n\n");
        sb.append("## Summary\n\n");
        sb.append("| cases | passed | failed | total | pass rate |\n");
        sb.append("| --- | ---: | ---: | ---: | ---: |\n");
        row(sb, "all", passed, results.size());
        if (coreOps != null) {
            row(sb, "core ops only", corePassed, coreTotal);
        }
        sb.append('\n');
        if (!byReason.isEmpty()) {
            sb.append("| reason | cases |\n| --- | ---: |\n");
            byReason.forEach((k, v) -> sb.append("| ").append(k.label()).append(" | ").append(v).append(" |\n"));
            sb.append('\n');
        }
        sb.append("## Cases that do not pass\n\n");
        if (notPassed.isEmpty()) {
            sb.append("None.\n");
            return sb.toString();
        }
        sb.append("| case | outcome | reason | message |\n");
        sb.append("| --- | --- | --- | --- |\n");
        for (TestCommand.CaseResult r : notPassed) {
            sb.append("| ").append(escape(r.name())).append(" | ").append(r.outcome()).append(" | ")
                    .append(classify(r).label()).append(" | ").append(escape(r.detail())).append(" |\n");
        }
        return sb.toString();
    }

    private boolean isCore(String name) {
        List<String> ops = caseOps.get(name);
        return coreOps != null && ops != null && coreOps.containsAll(ops);
    }

    private static void row(StringBuilder sb, String label, int passed, int total) {
        String rate = total == 0 ? "-" : String.format(Locale.ROOT, "%.1f%%", 100.0 * passed / total);
        sb.append("| ").append(label).append(" | ").append(passed).append(" | ").append(total - passed)
                .append(" | ").append(total).append(" | ").append(rate).append(" |\n");
    }

    /** Makes text safe inside a Markdown table cell. */
    static String escape(String s) {
        return s.replace("\\", "\\\\").replace("|", "\\|").replace("\n", " ").replace("\r", " ")
                .replace("<", "&lt;").replace(">", "&gt;");
    }

    private static Pattern typePattern() {
        StringBuilder alt = new StringBuilder("\\btype\\b");
        for (ElementType t : ElementType.values()) {
            alt.append("|\\b").append(Pattern.quote(t.name())).append("\\b|\\b")
                    .append(Pattern.quote(t.displayName())).append("\\b");
        }
        return Pattern.compile(alt.toString(), Pattern.CASE_INSENSITIVE);
    }
}
