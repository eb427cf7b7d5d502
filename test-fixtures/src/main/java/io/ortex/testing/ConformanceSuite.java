package io.ortex.testing;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Assumptions;

/**
 * Where ONNX's node conformance suite lies: {@code conformance/onnx-node} (one ONNX backend test case per folder,
 * with {@code INDEX.tsv}) and {@code conformance/CORE_OPS.txt} in the folder the system property
 * {@value #SHARED_PROPERTY} names (the Maven property of the same name sets it; by default {@code ../shared} beside
 * the clone, as CI has it). No package registry ships this data, so a test that needs it is skipped where it is
 * absent, with one line saying how to run it.
 */
public final class ConformanceSuite {
    /** The system property naming the folder that holds {@code conformance/}. */
    public static final String SHARED_PROPERTY = "ortex.shared";

    private ConformanceSuite() {
    }

    /**
     * Gets the conformance folder, or skips the calling test when the suite is not there.
     *
     * @return the folder holding {@code onnx-node/} and {@code CORE_OPS.txt}
     * @throws org.opentest4j.TestAbortedException when the suite is absent; one line on standard output says why
     */
    public static Path root() {
        Path root = location();
        if (!Files.isRegularFile(root.resolve("onnx-node").resolve("INDEX.tsv"))) {
            String test = StackWalker.getInstance(StackWalker.Option.RETAIN_CLASS_REFERENCE).walk(frames -> frames
                    .map(StackWalker.StackFrame::getDeclaringClass).filter(c -> c != ConformanceSuite.class)
                    .map(Class::getSimpleName).findFirst().orElse("this test"));
            String line = test + " is skipped: ONNX's node conformance suite is not in "
                    + root.resolve("onnx-node").toAbsolutePath().normalize()
                    + "; to run it, pass -D" + SHARED_PROPERTY + "=DIR where DIR/conformance/onnx-node holds ONNX's "
                    + "backend node test cases with their INDEX.tsv";
            System.out.println(line);
            Assumptions.abort(line);
        }
        return root;
    }

    /**
     * Gets the folder of the node test cases, or skips the calling test when the suite is not there.
     *
     * @return {@code conformance/onnx-node}
     */
    public static Path nodeCases() {
        return root().resolve("onnx-node");
    }

    /** The configured location, or {@code shared/conformance} beside the nearest folder above the working one. */
    static Path location() {
        String configured = System.getProperty(SHARED_PROPERTY);
        if (configured != null && !configured.isBlank()) {
            return Path.of(configured).resolve("conformance");
        }
        Path cwd = Path.of("").toAbsolutePath();
        for (Path d = cwd; d.getParent() != null; d = d.getParent()) {
            Path candidate = d.resolveSibling("shared").resolve("conformance");
            if (Files.isDirectory(candidate)) {
                return candidate;
            }
        }
        return cwd.resolveSibling("shared").resolve("conformance");
    }
}
