package io.ortex.itests.osgi;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;
import static org.ops4j.pax.exam.CoreOptions.bundle;
import static org.ops4j.pax.exam.CoreOptions.junitBundles;
import static org.ops4j.pax.exam.CoreOptions.mavenBundle;
import static org.ops4j.pax.exam.CoreOptions.systemPackages;
import static org.ops4j.pax.exam.CoreOptions.systemProperty;

import io.ortex.api.Environment;
import io.ortex.api.EpDevice;
import io.ortex.api.Session;
import io.ortex.api.Tensor;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Dictionary;
import java.util.Hashtable;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;
import javax.inject.Inject;
import org.ops4j.pax.exam.Configuration;
import org.ops4j.pax.exam.Constants;
import org.ops4j.pax.exam.Option;
import org.ops4j.pax.exam.ProbeBuilder;
import org.ops4j.pax.exam.TestProbeBuilder;
import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;
import org.osgi.service.cm.ConfigurationAdmin;
import org.osgi.util.tracker.ServiceTracker;

/**
 * What the OSGi integration tests share: the framework they run in (Felix with SCR and the DS API bundles,
 * ConfigAdmin, protobuf and jackson bundles, the Ortex bundles from the reactor's {@code target/} folders, SLF4J
 * from the class path as in the distribution; an unresolved bundle fails the test), and helpers to reach the
 * Environment service, configure the runtime and wait for conditions.
 */
public abstract class OsgiTestSupport {
    /** The example EP's bundle symbolic name, its library name in the runtime. */
    static final String EXAMPLE_BUNDLE = "io.ortex.ep.example";
    /** The CPU EP's bundle symbolic name. */
    static final String CPU_BUNDLE = "io.ortex.ep.cpu";
    /** The example EP's name. */
    static final String EXAMPLE_EP = "ExampleExecutionProvider";
    /** The CPU EP's name. */
    static final String CPU_EP = "CPUExecutionProvider";
    /** The runtime's configuration PID. */
    static final String PID = "io.ortex.runtime";

    /** The framework's context, as the test probe sees it. */
    @Inject
    protected BundleContext context;

    /**
     * The framework: SCR with the DS API bundles, ConfigAdmin, the libraries, the Ortex bundles and JUnit.
     *
     * @return the options
     */
    @Configuration
    public Option[] configuration() {
        List<Option> o = new ArrayList<Option>(List.of(
                systemProperty(Constants.EXAM_FAIL_ON_UNRESOLVED_KEY).value("true"),
                // logging as in the distribution: SLF4J and its provider (slf4j-jdk14) on the class path, exported by
                // the system bundle; Pax Exam provisions no Pax Logging (exam.properties); its own bundles ask for
                // org.slf4j [1.4,2), which the 2.x API serves as well, so it is exported at 1.7.36 too
                systemPackages(slf4j(property("slf4j.version")) + "," + slf4j("1.7.36")),
                mavenBundle("org.osgi", "org.osgi.util.function", "1.2.0"),
                mavenBundle("org.osgi", "org.osgi.util.promise", "1.3.0"),
                mavenBundle("org.osgi", "org.osgi.service.component", "1.5.1"),
                mavenBundle("org.apache.felix", "org.apache.felix.scr", property("felix.scr.version")),
                mavenBundle("org.apache.felix", "org.apache.felix.configadmin", property("felix.configadmin.version")),
                mavenBundle("com.google.protobuf", "protobuf-java", property("protobuf.version")),
                mavenBundle("com.fasterxml.jackson.core", "jackson-core", property("jackson.version")),
                mavenBundle("org.apache.felix", "org.apache.felix.gogo.runtime", "1.1.6"),
                bundle(ortexJar("bundles/api", "io.ortex.api")),
                bundle(ortexJar("bundles/onnx", "io.ortex.onnx")),
                bundle(ortexJar("runtime", "io.ortex.runtime")),
                bundle(ortexJar("bundles/shell", "io.ortex.shell")),
                bundle(ortexJar("ep-bundles/cpu", "io.ortex.ep.cpu")),
                junitBundles()));
        if (withExampleBundle()) {
            o.add(bundle(exampleJar()));
        }
        return o.toArray(new Option[0]);
    }

    /**
     * Whether the example EP bundle is installed and started with the framework; tests that install it themselves
     * say no.
     *
     * @return true by default
     */
    protected boolean withExampleBundle() {
        return true;
    }

    /**
     * Lets the probe see the ONNX protobuf classes, which io.ortex.onnx exports only to importers that ask with
     * {@code ortex.internal=true}.
     *
     * @param probe the probe
     * @return the probe
     */
    @ProbeBuilder
    public TestProbeBuilder probe(TestProbeBuilder probe) {
        probe.setHeader(org.osgi.framework.Constants.DYNAMICIMPORT_PACKAGE,
                "io.ortex.onnx.*;ortex.internal=true,*");
        return probe;
    }

    private static String slf4j(String version) {
        return String.join(",", List.of("org.slf4j", "org.slf4j.event", "org.slf4j.helpers", "org.slf4j.spi").stream()
                .map(p -> p + ";version=" + version).toList());
    }

    static String property(String key) {
        String v = System.getProperty(key);
        if (v == null) {
            throw new IllegalStateException("system property " + key + " is not set (run through Maven failsafe)");
        }
        return v;
    }

    static String ortexJar(String module, String artifact) {
        return "file:" + property("ortex.bundles.root") + "/" + module + "/target/" + artifact + "-"
                + property("ortex.version") + ".jar";
    }

    static String exampleJar() {
        return ortexJar("ep-bundles/example", "io.ortex.ep.example");
    }

    /**
     * Gets the Environment service, waiting for it.
     *
     * @return the service
     */
    protected Environment environment() throws InterruptedException {
        ServiceTracker<Environment, Environment> t = new ServiceTracker<>(context, Environment.class, null);
        t.open();
        try {
            Environment env = t.waitForService(10_000);
            if (env == null) {
                fail("no Environment service within 10 s");
            }
            return env;
        } finally {
            t.close();
        }
    }

    /**
     * Sets the runtime's configuration (PID {@value #PID}), replacing earlier entries.
     *
     * @param entries key, value, key, value, ...
     */
    protected void configure(Object... entries) throws IOException {
        Dictionary<String, Object> d = new Hashtable<>();
        for (int i = 0; i < entries.length; i += 2) {
            d.put((String) entries[i], entries[i + 1]);
        }
        ServiceTracker<ConfigurationAdmin, ConfigurationAdmin> t = new ServiceTracker<>(context,
                ConfigurationAdmin.class, null);
        t.open();
        try {
            ConfigurationAdmin ca = t.waitForService(10_000);
            ca.getConfiguration(PID, "?").update(d);
        } catch (InterruptedException e) {
            throw new IllegalStateException(e);
        } finally {
            t.close();
        }
    }

    /**
     * Waits until a condition holds.
     *
     * @param millis how long at most
     * @param what what is awaited, for the failure message
     * @param condition the condition
     */
    protected static void await(long millis, String what, BooleanSupplier condition) throws InterruptedException {
        long end = System.currentTimeMillis() + millis;
        while (!condition.getAsBoolean()) {
            if (System.currentTimeMillis() > end) {
                fail("timed out after " + millis + " ms waiting until " + what);
            }
            Thread.sleep(20);
        }
    }

    /**
     * Gets the selectable devices of one EP.
     *
     * @param env the environment
     * @param ep the EP name
     * @return its devices
     */
    protected static List<EpDevice> devicesOf(Environment env, String ep) {
        return env.epDevices().stream().filter(d -> d.epName().equals(ep)).toList();
    }

    /**
     * Finds the installed bundle with a symbolic name.
     *
     * @param bsn the symbolic name
     * @return the bundle, or {@code null}
     */
    protected Bundle installed(String bsn) {
        for (Bundle b : context.getBundles()) {
            if (bsn.equals(b.getSymbolicName())) {
                return b;
            }
        }
        return null;
    }

    /**
     * Runs the tiny model once and checks its output against the reference computed in Java.
     *
     * @param session a session of {@link TinyModel#bytes()}
     * @param seed the input's seed
     */
    protected static void runAndCheck(Session session, int seed) {
        float[] x = TinyModel.input(seed);
        Map<String, Tensor> out = session.run(Map.of(TinyModel.INPUT, Tensor.ofFloats(x, 1, TinyModel.WIDTH)));
        float[] y = out.get(TinyModel.OUTPUT).floats();
        float[] want = TinyModel.reference(x);
        assertEquals(want.length, y.length);
        for (int i = 0; i < want.length; i++) {
            assertTrue("output " + i + ": " + y[i] + " != " + want[i], Math.abs(y[i] - want[i]) < 1e-5f);
        }
    }
}
