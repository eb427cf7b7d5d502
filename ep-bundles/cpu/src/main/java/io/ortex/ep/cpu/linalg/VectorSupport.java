package io.ortex.ep.cpu.linalg;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Decides once whether the CPU EP's kernels use the Vector API ({@code jdk.incubator.vector}) or plain Java, and
 * logs the choice. The Vector API is used when the module is in the boot layer (the JVM was started with
 * {@code --add-modules jdk.incubator.vector}; the distribution's launcher does that) and its classes load, unless
 * the system property {@value #PROPERTY} is {@code false}. The check touches no Vector API class before it knows the
 * module is there, so the CPU EP also runs on JVMs and in containers (an application server that does not add the
 * module) where it is missing.
 */
public final class VectorSupport {
    /** The system property that turns the Vector API off ({@code false}); anything else leaves it automatic. */
    public static final String PROPERTY = "ortex.cpu.vector";

    private static final Logger LOG = LoggerFactory.getLogger("io.ortex.ep.cpu");
    private static final String DESCRIPTION;
    private static final boolean ENABLED;

    static {
        String why = null;
        boolean on = false;
        if ("false".equalsIgnoreCase(System.getProperty(PROPERTY, "").trim())) {
            why = "turned off by -D" + PROPERTY + "=false";
        } else if (ModuleLayer.boot().findModule("jdk.incubator.vector").isEmpty()) {
            why = "module jdk.incubator.vector not present (start the JVM with --add-modules jdk.incubator.vector)";
        } else {
            try {
                why = VectorGemm.describe();
                on = true;
            } catch (LinkageError | RuntimeException e) {
                why = "the Vector API failed to load: " + e;
            }
        }
        ENABLED = on;
        DESCRIPTION = on ? "Vector API, " + why : "plain Java: " + why;
        LOG.info("CPU EP kernels: {}", DESCRIPTION);
    }

    private VectorSupport() {
    }

    /**
     * Tells whether the kernels use the Vector API.
     *
     * @return true when they do
     */
    public static boolean enabled() {
        return ENABLED;
    }

    /**
     * Describes the kernels in use, such as {@code Vector API, 256-bit float vectors} or {@code plain Java: module
     * jdk.incubator.vector not present}.
     *
     * @return the description
     */
    public static String description() {
        return DESCRIPTION;
    }
}
