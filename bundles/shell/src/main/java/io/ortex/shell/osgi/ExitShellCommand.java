package io.ortex.shell.osgi;

import java.lang.reflect.Method;
import org.apache.felix.service.command.Descriptor;
import org.osgi.framework.BundleContext;
import org.osgi.framework.BundleException;
import org.osgi.framework.ServiceReference;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;

/**
 * The Gogo command {@code exit}: ends the console and stops the framework. Without it, {@code exit} in Gogo's JLine
 * console finds {@code System.exit(int)} (the console's profile adds the methods of {@code System} as commands):
 * with no argument it fails, and {@code exit 0} halts the JVM under the running shell, whose thread is then
 * interrupted and prints an {@code InterruptedException}. Registered in the scope {@code gogo}, which the console
 * searches first.
 *
 * <p>The console is ended the way the end of its input ends it: its read loop stops after this command, and the
 * console stops the framework itself. Stopping the framework from here instead leaves the console reading while its
 * bundle stops; that bundle restores the terminal's settings before it interrupts the reading thread, and a read
 * begun in between waits for a whole line, so the console's bundle gave up after 5 s ("FAILED TO STOP EXECUTOR").
 */
@Component(service = ExitShellCommand.class, immediate = true, property = {
    "osgi.command.scope=gogo",
    "osgi.command.function=exit"
})
public final class ExitShellCommand {
    /** The JLine console's command class; its {@code stop()} ends the read loop after the running command. */
    private static final String CONSOLE_CLASS = "org.apache.felix.gogo.jline.Shell";

    private final BundleContext context;

    /**
     * Creates the component.
     *
     * @param context the shell bundle's context
     */
    @Activate
    public ExitShellCommand(BundleContext context) {
        this.context = context;
    }

    /**
     * Ends the JLine console, which then stops the framework; without that console (Karaf's, or none), stops the
     * framework.
     *
     * @throws BundleException when the framework cannot be stopped
     */
    @Descriptor("stops the framework and leaves the shell")
    public void exit() throws BundleException {
        if (!stopConsole()) {
            context.getBundle(0).stop();
        }
    }

    /**
     * Calls {@code stop()} on the JLine console's command object. Reflection keeps the Gogo JLine bundle optional:
     * the shell bundle also runs under consoles that do not have it.
     */
    private boolean stopConsole() {
        ServiceReference<?> ref = context.getServiceReference(CONSOLE_CLASS);
        if (ref == null) {
            return false;
        }
        Object console = context.getService(ref);
        try {
            if (console == null) {
                return false;
            }
            Method stop = console.getClass().getMethod("stop");
            stop.invoke(console);
            return true;
        } catch (ReflectiveOperationException | RuntimeException e) {
            return false;
        } finally {
            if (console != null) {
                context.ungetService(ref);
            }
        }
    }
}
