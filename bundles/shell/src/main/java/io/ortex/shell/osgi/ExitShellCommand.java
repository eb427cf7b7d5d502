package io.ortex.shell.osgi;

import org.apache.felix.service.command.Descriptor;
import org.osgi.framework.BundleContext;
import org.osgi.framework.BundleException;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;

/**
 * The Gogo command {@code exit}: stops the framework, which ends the shell as the end of its input does. Without it,
 * {@code exit} in Gogo's JLine console finds {@code System.exit(int)} (the console's profile adds the methods of
 * {@code System} as commands): with no argument it fails, and {@code exit 0} halts the JVM under the running shell,
 * whose thread is then interrupted and prints an {@code InterruptedException}. Registered in the scope
 * {@code gogo}, which the console searches first.
 */
@Component(service = ExitShellCommand.class, immediate = true, property = {
    "osgi.command.scope=gogo",
    "osgi.command.function=exit"
})
public final class ExitShellCommand {
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
     * Stops the framework; the framework stops on a thread of its own, so the shell returns to its loop and ends
     * when its console bundle stops.
     *
     * @throws BundleException when the framework cannot be stopped
     */
    @Descriptor("stops the framework and leaves the shell")
    public void exit() throws BundleException {
        context.getBundle(0).stop();
    }
}
