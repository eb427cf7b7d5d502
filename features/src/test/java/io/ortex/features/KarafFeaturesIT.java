package io.ortex.features;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.fail;
import static org.ops4j.pax.exam.CoreOptions.maven;
import static org.ops4j.pax.exam.karaf.options.KarafDistributionOption.configureConsole;
import static org.ops4j.pax.exam.karaf.options.KarafDistributionOption.editConfigurationFilePut;
import static org.ops4j.pax.exam.karaf.options.KarafDistributionOption.karafDistributionConfiguration;
import static org.ops4j.pax.exam.karaf.options.KarafDistributionOption.logLevel;

import java.io.File;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;
import javax.inject.Inject;
import org.apache.karaf.features.FeaturesService;
import org.junit.Test;
import org.junit.runner.RunWith;
import org.ops4j.pax.exam.Configuration;
import org.ops4j.pax.exam.Option;
import org.ops4j.pax.exam.junit.PaxExam;
import org.ops4j.pax.exam.karaf.options.LogLevelOption.LogLevel;
import org.ops4j.pax.exam.spi.reactors.ExamReactorStrategy;
import org.ops4j.pax.exam.spi.reactors.PerClass;
import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;

/**
 * Installs the Ortex features from this module's features.xml (added by its file URI) in Apache Karaf 4.4 from
 * Maven Central, under Pax Exam: feature {@code ortex} brings the Environment service with the CPU EP, which runs a
 * tiny model; feature {@code ortex-example-ep} adds the example EP's virtual NPU (the runtime's configuration grants
 * it virtual devices), which runs the model too; feature {@code ortex-shell} resolves; feature {@code ortex-ep-ort}
 * brings the ONNX Runtime EP, which runs the model before and after its bundle is updated. The runtime logs through
 * SLF4J, which Karaf's Pax Logging provides: its INFO lines for an EP arriving and for a drain finishing are in
 * Karaf's log file. The features' {@code mvn:}
 * URLs of the Ortex bundles are served from the reactor's jars laid out as a Maven repository (nothing is installed);
 * everything else comes from Karaf's system folder or the local Maven repository. Karaf's shell is never used, so that
 * the test also passes on JDK 25. Feature {@code ortex-serve} serves a model copied into its models folder over the
 * Open Inference Protocol on Pax Web, answering real HTTP requests on a free loopback port.
 */
@RunWith(PaxExam.class)
@ExamReactorStrategy(PerClass.class)
public class KarafFeaturesIT {
    private static final String MVN_CFG = "etc/org.ops4j.pax.url.mvn.cfg";
    private static final String PROPERTY_FEATURES = "ortex.features.file";
    private static final String LOGGING_CFG = "etc/org.ops4j.pax.logging.cfg";
    private static final String PROPERTY_SERVE_PORT = "ortex.it.serve.port";
    private static final String PROPERTY_SERVE_MODELS = "ortex.it.serve.models";
    /** The models folder of feature ortex-serve, emptied before Karaf starts; the test writes a model into it. */
    private static final File SERVE_MODELS = new File("target/exam-models").getAbsoluteFile();

    @Inject
    private BundleContext context;

    @Inject
    private FeaturesService features;

    /**
     * Karaf from the local Maven repository, unpacked under target/exam, with pax-url pointed at the local repository,
     * Maven Central and the reactor's bundles, EventAdmin's subject lookup off (it throws on JDK 24 and later), and the
     * runtime's configuration granting the example EP bundle virtual devices; Pax Web on a free port of the loopback
     * interface, and the model server's models folder (an empty folder under target/).
     *
     * @return the options
     */
    @Configuration
    public Option[] configuration() throws IOException {
        String reactorRepo = new File(property("ortex.reactor.repo")).toURI().toString();
        deleteTree(SERVE_MODELS.toPath());
        Files.createDirectories(SERVE_MODELS.toPath());
        String port = Integer.toString(freePort());
        return new Option[] {
            karafDistributionConfiguration()
                    .frameworkUrl(maven().groupId("org.apache.karaf").artifactId("apache-karaf")
                            .version(property("karaf.version")).type("tar.gz"))
                    .unpackDirectory(new File("target/exam"))
                    .useDeployFolder(false),
            configureConsole().ignoreLocalConsole(),
            logLevel(LogLevel.WARN),
            // the Ortex loggers at INFO, as an operator turns a component up (README, "Logging")
            editConfigurationFilePut(LOGGING_CFG, "log4j2.logger.ortex.name", "io.ortex"),
            editConfigurationFilePut(LOGGING_CFG, "log4j2.logger.ortex.level", "INFO"),
            editConfigurationFilePut(MVN_CFG, "org.ops4j.pax.url.mvn.localRepository",
                    property("org.ops4j.pax.url.mvn.localRepository")),
            editConfigurationFilePut(MVN_CFG, "org.ops4j.pax.url.mvn.repositories",
                    property("org.ops4j.pax.url.mvn.repositories")),
            editConfigurationFilePut(MVN_CFG, "org.ops4j.pax.url.mvn.useFallbackRepositories", "false"),
            editConfigurationFilePut(MVN_CFG, "org.ops4j.pax.url.mvn.defaultRepositories",
                    "file:${karaf.home}/${karaf.default.repository}@id=system.repository@snapshots, "
                            + reactorRepo + "@id=ortex.reactor@snapshots"),
            editConfigurationFilePut("etc/org.apache.felix.eventadmin.impl.EventAdmin.cfg",
                    "org.apache.felix.eventadmin.AddSubject", "false"),
            editConfigurationFilePut("etc/io.ortex.runtime.cfg", "virtual.grants", "io.ortex.ep.example"),
            editConfigurationFilePut("etc/system.properties", PROPERTY_FEATURES,
                    new File(property(PROPERTY_FEATURES)).getAbsolutePath()),
            // feature ortex-serve: Pax Web's port and address, the server's models folder, a short poll
            editConfigurationFilePut("etc/org.ops4j.pax.web.cfg", "org.osgi.service.http.port", port),
            editConfigurationFilePut("etc/org.ops4j.pax.web.cfg", "org.ops4j.pax.web.listening.addresses",
                    "127.0.0.1"),
            editConfigurationFilePut("etc/io.ortex.serve.cfg", "models.dir", SERVE_MODELS.getPath()),
            editConfigurationFilePut("etc/io.ortex.serve.cfg", "poll.ms", "200"),
            editConfigurationFilePut("etc/system.properties", PROPERTY_SERVE_PORT, port),
            editConfigurationFilePut("etc/system.properties", PROPERTY_SERVE_MODELS, SERVE_MODELS.getPath()),
        };
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    private static void deleteTree(Path root) throws IOException {
        if (!Files.exists(root)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(root)) {
            for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }

    private static String property(String key) {
        String v = System.getProperty(key);
        if (v == null) {
            throw new IllegalStateException("system property " + key + " is not set (run through Maven failsafe)");
        }
        return v;
    }

    /** Adds the repository, installs the features, runs the model on the CPU EP and on the example EP's NPU. */
    @Test
    public void theFeaturesInstallAndRunAModel() throws Exception {
        URI repository = new File(property(PROPERTY_FEATURES)).toURI();
        features.addRepository(repository);
        assertNotNull("the repository defines ortex", features.getFeature("ortex"));

        features.installFeature("ortex");
        // the Ortex classes are loaded only now, by a class of their own, as the probe imports them dynamically
        OrtexChecks.runOnTheCpuEp(context);

        features.installFeature("ortex-example-ep");
        OrtexChecks.runOnTheExampleNpu(context);
        // Karaf's log (Pax Logging, log4j2) has the example EP's arrival, from the runtime's SLF4J logger
        awaitLogLine("registry", "EP library 'io.ortex.ep.example' arrived: EP ExampleExecutionProvider");

        features.installFeature("ortex-shell");

        features.installFeature("ortex-ep-ort");
        OrtexChecks.runOnTheOrtEp(context);
        // the EP bundle is updated in place; ONNX Runtime's bundle stays, so its native library is not loaded again
        bundle("io.ortex.ep.ort").update();
        OrtexChecks.runOnTheOrtEp(context);
        // the update removed the EP's older library: its drain finished, and the new one arrived
        awaitLogLine("drain", "EP library 'io.ortex.ep.ort' removed after");
        awaitLogLine("registry", "EP library 'io.ortex.ep.ort' arrived: EP ");
        for (String bsn : List.of("io.ortex.api", "io.ortex.onnx", "io.ortex.runtime", "io.ortex.ep.cpu",
                "io.ortex.ep.example", "io.ortex.shell", "io.ortex.ep.ort", "com.microsoft.onnxruntime",
                "com.google.protobuf", "com.fasterxml.jackson.core.jackson-core")) {
            Bundle b = bundle(bsn);
            assertNotNull(bsn + " is installed", b);
            assertEquals(bsn + " is active", Bundle.ACTIVE, b.getState());
        }
    }

    /**
     * Installs feature ortex-serve (which brings ortex and Pax Web's HTTP Whiteboard), copies a model into the
     * configured models folder, and runs it over HTTP with checked outputs.
     */
    @Test
    public void theServeFeatureServesAModelOverHttp() throws Exception {
        features.addRepository(new File(property(PROPERTY_FEATURES)).toURI());
        features.installFeature("ortex-serve");
        for (String bsn : List.of("io.ortex.serve", "com.fasterxml.jackson.core.jackson-core")) {
            Bundle b = bundle(bsn);
            assertNotNull(bsn + " is installed", b);
            assertEquals(bsn + " is active", Bundle.ACTIVE, b.getState());
        }
        ServeChecks.writeModel(Path.of(property(PROPERTY_SERVE_MODELS)));
        ServeChecks.inferOverHttp(Integer.parseInt(property(PROPERTY_SERVE_PORT)));
        awaitLogLine("models", "model '" + ServeChecks.MODEL + "' version 1 loaded");
    }

    /**
     * Waits until Karaf's log file has an INFO line of an Ortex logger (its pattern shows the logger's last name
     * segment) with a text.
     */
    private static void awaitLogLine(String logger, String text) throws Exception {
        Path log = Path.of(property("karaf.log"), "karaf.log");
        long end = System.currentTimeMillis() + 10_000;
        while (true) {
            List<String> lines = Files.exists(log) ? Files.readAllLines(log, StandardCharsets.ISO_8859_1) : List.of();
            if (lines.stream().anyMatch(l -> l.contains("| INFO ") && l.contains("| " + logger + " ")
                    && l.contains(text))) {
                return;
            }
            if (System.currentTimeMillis() > end) {
                fail("no INFO line of logger " + logger + " with '" + text + "' in " + log + " within 10 s");
            }
            Thread.sleep(50);
        }
    }

    private Bundle bundle(String bsn) {
        for (Bundle b : context.getBundles()) {
            if (bsn.equals(b.getSymbolicName())) {
                return b;
            }
        }
        return null;
    }
}
