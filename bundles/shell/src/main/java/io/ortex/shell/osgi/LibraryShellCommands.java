package io.ortex.shell.osgi;

import io.ortex.api.Environment;
import io.ortex.shell.internal.Failures;
import io.ortex.shell.internal.UsageException;
import java.nio.file.Path;
import java.time.Duration;
import org.apache.felix.service.command.Descriptor;
import org.apache.felix.service.command.Parameter;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;

/**
 * The Gogo commands {@code ortex:register NAME PATH} and {@code ortex:unregister [--wait S] NAME}: EP libraries
 * registered with the runtime's environment at run time, a jar or, with the ONNX Runtime EP bundle present, a native
 * ONNX Runtime plugin-EP library ({@code .so}). A library registered this way stays until it is unregistered or the
 * framework stops; {@code ortex:eps} lists its devices under its name. Immediate, so that Gogo calls one instance.
 */
@Component(service = LibraryShellCommands.class, immediate = true, property = {
    "osgi.command.scope=ortex",
    "osgi.command.function=register",
    "osgi.command.function=unregister"
})
public final class LibraryShellCommands {
    private final Environment environment;

    /**
     * Creates the component.
     *
     * @param environment the runtime's Environment service
     */
    @Activate
    public LibraryShellCommands(@Reference Environment environment) {
        this.environment = environment;
    }

    /**
     * Registers an EP library.
     *
     * @param name the registration name
     * @param path the library file
     */
    @Descriptor("registers an EP library under NAME: a jar with EpFactory providers, or a native ONNX Runtime "
            + "plugin-EP library (.so) when the ONNX Runtime EP is deployed; a NAME ending in .virtual lets it offer "
            + "virtual devices")
    public void register(@Descriptor("the registration name") String name,
                         @Descriptor("the library file") String path) {
        Failures.guard(false, System.err, () -> {
            environment.registerLibrary(name, Path.of(path).toAbsolutePath());
            long devices = environment.epLibraries().stream().filter(l -> l.name().equals(name))
                    .mapToLong(l -> l.devices().size()).sum();
            System.out.println("registered EP library '" + name + "' from " + path + " (" + devices + " EP device"
                    + (devices == 1 ? "" : "s") + ")");
            return 0;
        });
    }

    /**
     * Unregisters an EP library, waiting for the sessions holding it.
     *
     * @param waitSeconds how long to wait for sessions to close; 0 fails at once when one holds it
     * @param name the registration name
     */
    @Descriptor("unregisters the EP library NAME once no session holds it; with --wait S its devices are withdrawn "
            + "at once and the command waits up to S seconds for the sessions holding it to close")
    public void unregister(@Descriptor("seconds to wait for sessions holding it (default 0)")
                           @Parameter(names = "--wait", absentValue = "0") String waitSeconds,
                           @Descriptor("the registration name") String name) {
        Failures.guard(false, System.err, () -> {
            long seconds;
            try {
                seconds = Long.parseLong(waitSeconds.trim());
            } catch (NumberFormatException e) {
                throw new UsageException("--wait " + waitSeconds + ": not a number of seconds");
            }
            if (seconds < 0) {
                throw new UsageException("--wait " + waitSeconds + ": must be 0 or more");
            }
            if (seconds == 0) {
                environment.unregisterLibrary(name);
            } else {
                environment.unregisterLibrary(name, Duration.ofSeconds(seconds));
            }
            System.out.println("unregistered EP library '" + name + "'");
            return 0;
        });
    }
}
