package io.ortex.launcher;

import java.io.File;
import java.io.IOException;
import java.io.PrintStream;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.stream.Stream;
import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;
import org.osgi.framework.BundleException;
import org.osgi.framework.Constants;
import org.osgi.framework.ServiceReference;
import org.osgi.framework.launch.Framework;
import org.osgi.framework.launch.FrameworkFactory;

/**
 * Starts the distribution: Felix with the bundles of {@code bundle/} (FileInstall, started among the last, then
 * installs what {@code deploy/} holds and applies the {@code .cfg} files of {@code conf/} and {@code deploy/}).
 * Without arguments, or with {@code shell}, it starts the Gogo shell and runs until the shell or the framework stops.
 * With {@code serve} it starts the model server without a console (standard input is not read) and runs until the
 * process is stopped (SIGTERM, as a container runtime stops it).
 * With a verb ({@code run}, {@code eps}, ...) it runs that one command through the shell bundle's
 * {@code io.ortex.shell.CommandLine} service, stops the framework and exits with the command's status, so the
 * command line and the shell always see the same bundles. Each run has its own framework cache, deleted at exit, so
 * that several commands can run at once. A verb's {@code --env KEY=VALUE} entries configure the runtime of its own
 * framework ({@link CommandEnvironment}).
 *
 * <p>System properties: {@code ortex.home} (the distribution folder, required). Failures of the launcher itself are
 * one {@code ortex: } line on standard error and exit status 1.
 */
public final class Launcher {
    /** The service the shell bundle registers for the command line; called by name, without sharing its type. */
    static final String COMMAND_LINE = "io.ortex.shell.CommandLine";
    /** How long a verb waits for the command-line service to appear. */
    static final long SERVICE_WAIT_MS = 30_000;

    /** How the distribution runs: which of the shell-only bundles start, and whether it waits for a stop. */
    enum Mode {
        /** The Gogo console and the model server, until the shell or the framework stops. */
        SHELL,
        /** The model server without a console, until the process is stopped. */
        SERVE,
        /** One command, then exit with its status. */
        VERB;

        /**
         * Chooses the mode of a command line.
         *
         * @param args the launcher's arguments
         * @return the mode
         */
        static Mode of(String... args) {
            if (args.length == 0 || args.length == 1 && args[0].equals("shell")) {
                return SHELL;
            }
            return args.length == 1 && args[0].equals("serve") ? SERVE : VERB;
        }
    }

    private final Path home;
    private final Mode mode;

    private Launcher(Path home, Mode mode) {
        this.home = home;
        this.mode = mode;
    }

    /**
     * Runs the distribution.
     *
     * @param args nothing or {@code shell} for the Gogo shell, {@code serve} for the model server alone; otherwise a
     *     verb and its arguments
     */
    public static void main(String[] args) {
        String homeProperty = System.getProperty("ortex.home");
        if (homeProperty == null) {
            System.err.println("ortex: the system property ortex.home is not set (start through bin/ortex)");
            System.exit(1);
        }
        if (args.length > 1 && args[0].equals("serve")) {
            System.err.println("ortex: serve takes no arguments (the server's settings are in conf/)");
            System.exit(2);
        }
        Mode mode = Mode.of(args);
        Launcher launcher = new Launcher(Path.of(homeProperty).toAbsolutePath(), mode);
        int status;
        try {
            status = launcher.launch(mode == Mode.VERB ? List.of(args) : List.of());
        } catch (Exception e) {
            System.err.println("ortex: the framework failed: " + e.getMessage());
            if (Arrays.asList(args).contains("--verbose")) {
                e.printStackTrace();
            }
            status = 1;
        }
        System.exit(status);
    }

    private int launch(List<String> verb) throws Exception {
        Path cache = Files.createTempDirectory("ortex-felix-");
        Framework framework = null;
        try {
            Map<String, String> props = new HashMap<>(FrameworkProperties.readAll(home.resolve("conf"),
                    name -> name.equals("ortex.home") ? home.toString() : System.getProperty(name)));
            props.put(Constants.FRAMEWORK_STORAGE, cache.toString());
            Map<String, String> env = CommandEnvironment.of(verb);
            if (!env.isEmpty()) {
                props.put(CommandEnvironment.PROPERTY, CommandEnvironment.encode(env));
            }
            props.put(Constants.FRAMEWORK_STORAGE_CLEAN, Constants.FRAMEWORK_STORAGE_CLEAN_ONFIRSTINIT);
            FrameworkFactory factory = ServiceLoader.load(FrameworkFactory.class).findFirst()
                    .orElseThrow(() -> new IllegalStateException("no OSGi framework on the class path (lib/)"));
            framework = factory.newFramework(props);
            framework.init();
            Framework running = framework;
            Thread hook = new Thread(() -> {
                stopQuietly(running);
                deleteTree(cache);
            }, "ortex-shutdown");
            Runtime.getRuntime().addShutdownHook(hook);
            framework.start();
            startBundles(framework.getBundleContext(), props);
            int status;
            if (mode != Mode.VERB) {
                framework.waitForStop(0);
                status = 0;
            } else {
                status = runVerb(framework.getBundleContext(), verb);
            }
            stopQuietly(framework);
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException shuttingDown) {
                // the hook is running already
            }
            return status;
        } finally {
            if (framework != null) {
                stopQuietly(framework);
            }
            deleteTree(cache);
        }
    }

    /**
     * Installs every jar of {@code bundle/}, then starts them: the others first, then those named by
     * {@value FrameworkProperties#START_LAST} in that order (FileInstall before SCR, so that the {@code .cfg} files are
     * in ConfigAdmin when the components activate), and the shell-only bundles last: all of them for the shell, those
     * also named by {@value FrameworkProperties#SERVE} for {@code serve}, none for a verb.
     */
    private void startBundles(BundleContext context, Map<String, String> props) throws IOException,
            BundleException {
        List<String> last = list(props.get(FrameworkProperties.START_LAST));
        List<String> shellOnly = list(props.get(FrameworkProperties.SHELL_ONLY));
        List<String> serve = list(props.get(FrameworkProperties.SERVE));
        List<Bundle> bundles = new ArrayList<>();
        try (Stream<Path> jars = Files.list(home.resolve("bundle"))) {
            for (Path jar : jars.filter(p -> p.getFileName().toString().endsWith(".jar")).sorted().toList()) {
                // "reference:" installs the jar in place instead of copying it into the cache: a faster start
                bundles.add(context.installBundle("reference:" + jar.toUri()));
            }
        }
        List<String> order = new ArrayList<>(last);
        order.addAll(shellOnly);
        bundles.sort(Comparator.comparingInt(b -> order.indexOf(b.getSymbolicName())));
        for (Bundle b : bundles) {
            boolean fragment = b.getHeaders("").get(Constants.FRAGMENT_HOST) != null;
            String bsn = b.getSymbolicName();
            boolean started = switch (mode) {
                case SHELL -> true;
                case SERVE -> !shellOnly.contains(bsn) || serve.contains(bsn);
                case VERB -> !shellOnly.contains(bsn);
            };
            if (fragment || !started) {
                continue;
            }
            if (shellOnly.contains(b.getSymbolicName())) {
                startWithJLineLoader(context, b);
            } else {
                b.start();
            }
        }
    }

    /**
     * Starts a shell bundle with JLine's class loader as the thread context class loader. The Gogo console creates its
     * terminal while it starts, and JLine looks up its terminal providers (exec, FFM, JNI) through the context class
     * loader; the launcher's, the application class loader, cannot see them, and JLine would fall back to a dumb
     * terminal on a real one.
     */
    private static void startWithJLineLoader(BundleContext context, Bundle b) throws BundleException {
        ClassLoader jline = null;
        for (Bundle candidate : context.getBundles()) {
            if ("org.jline".equals(candidate.getSymbolicName())) {
                org.osgi.framework.wiring.BundleWiring w =
                        candidate.adapt(org.osgi.framework.wiring.BundleWiring.class);
                jline = w == null ? null : w.getClassLoader();
            }
        }
        Thread t = Thread.currentThread();
        ClassLoader before = t.getContextClassLoader();
        if (jline != null) {
            t.setContextClassLoader(jline);
        }
        try {
            b.start();
        } finally {
            t.setContextClassLoader(before);
        }
    }

    private static List<String> list(String value) {
        if (value == null || value.isBlank()) {
            return List.of();
        }
        return Arrays.stream(value.split(",")).map(String::trim).filter(s -> !s.isEmpty()).toList();
    }

    /** Calls {@code CommandLine.execute(List, PrintStream, PrintStream)} of the shell bundle's service. */
    private static int runVerb(BundleContext context, List<String> verb) throws Exception {
        ServiceReference<?> ref = awaitService(context);
        Object service = context.getService(ref);
        try {
            Class<?> type = ref.getBundle().loadClass(COMMAND_LINE);
            Method execute = type.getMethod("execute", List.class, PrintStream.class, PrintStream.class);
            return (Integer) execute.invoke(service, verb, System.out, System.err);
        } catch (InvocationTargetException e) {
            throw e.getCause() instanceof Exception ex ? ex : e;
        } finally {
            context.ungetService(ref);
            System.out.flush();
        }
    }

    private static ServiceReference<?> awaitService(BundleContext context) throws Exception {
        long end = System.currentTimeMillis() + SERVICE_WAIT_MS;
        while (true) {
            ServiceReference<?>[] refs = context.getAllServiceReferences(COMMAND_LINE, null);
            if (refs != null && refs.length > 0) {
                return refs[0];
            }
            if (System.currentTimeMillis() > end) {
                throw new IllegalStateException("the shell bundle's " + COMMAND_LINE + " service did not appear in "
                        + SERVICE_WAIT_MS / 1000 + " s; is a bundle of bundle/ unresolved?");
            }
            Thread.sleep(10);
        }
    }

    private static void stopQuietly(Framework framework) {
        try {
            if ((framework.getState() & (Bundle.ACTIVE | Bundle.STARTING)) != 0) {
                framework.stop();
            }
            framework.waitForStop(30_000);
        } catch (BundleException | InterruptedException | RuntimeException e) {
            System.err.println("ortex: stopping the framework: " + e);
        }
    }

    private static void deleteTree(Path root) {
        try (Stream<Path> walk = Files.walk(root)) {
            walk.sorted(Comparator.reverseOrder()).map(Path::toFile).forEach(File::delete);
        } catch (IOException e) {
            // a leftover cache in the temporary folder is harmless
        }
    }
}
