package io.ortex.ep.ort;

import ai.onnxruntime.OrtEnvironment;
import ai.onnxruntime.OrtEpDevice;
import ai.onnxruntime.OrtException;
import ai.onnxruntime.OrtProvider;
import io.ortex.api.EpUnavailableException;
import io.ortex.api.ErrorCode;
import io.ortex.api.OrtexException;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.slf4j.LoggerFactory;

/**
 * The one place this bundle reaches ONNX Runtime's process-wide environment. ONNX Runtime loads its native library
 * itself, once per JVM, from the module or bundle {@code com.microsoft.onnxruntime} (its system properties
 * {@code onnxruntime.native.path} and {@code onnxruntime.native.<lib>.path} still apply); this class only asks for
 * the environment. The
 * environment is shared by every revision of this bundle and every Ortex environment in the JVM: this bundle never
 * closes it. Thread safe.
 */
final class OrtRuntime {
    private OrtRuntime() {
    }

    /**
     * Gets ONNX Runtime's environment, loading the native library on first use.
     *
     * @return the environment
     * @throws EpUnavailableException when the native library cannot be loaded on this platform
     */
    static OrtEnvironment environment() {
        try {
            // the default environment: asking for another logging level would warn when an application created it
            // first; sessions log at FATAL instead (OrtSettings), so ONNX Runtime's messages do not reach the console
            return OrtEnvironment.getEnvironment();
        } catch (LinkageError | IllegalStateException e) {
            throw new EpUnavailableException("ONNX Runtime's native library could not be loaded: " + e);
        }
    }

    /**
     * Gets the ONNX Runtime version, such as {@code 1.29.0}.
     *
     * @return the version
     */
    static String version() {
        return environment().getVersion();
    }

    /**
     * Gets ONNX Runtime's EP devices: those of its built-in EPs and of the plugin-EP libraries registered now.
     *
     * @return the devices, in ONNX Runtime's order
     * @throws OrtexException when ONNX Runtime fails
     */
    static List<OrtEpDevice> epDevices() {
        try {
            return environment().getEpDevices();
        } catch (OrtException e) {
            throw failure("listing ONNX Runtime's EP devices", e);
        }
    }

    /**
     * Unregisters a plugin-EP library from ONNX Runtime, logging a failure rather than throwing it.
     *
     * @param name the registration name
     */
    static void unregisterLibrary(String name) {
        try {
            environment().unregisterExecutionProviderLibrary(name);
        } catch (OrtException e) {
            LoggerFactory.getLogger("io.ortex.ep.ort").warn("unregistering ONNX Runtime plugin-EP library '{}' failed: "
                    + "{}", name, message(e));
        }
    }

    /**
     * Gets the names of the EPs built into this ONNX Runtime package, such as {@code CPUExecutionProvider}.
     *
     * @return the names
     */
    static Set<String> builtInEps() {
        Set<String> names = new TreeSet<>();
        for (OrtProvider p : OrtEnvironment.getAvailableProviders()) {
            names.add(p.getName());
        }
        return names;
    }

    /**
     * Turns an ONNX Runtime failure into an Ortex one that says what was being done.
     *
     * @param doing what failed, such as {@code creating a session for partition p}
     * @param e ONNX Runtime's exception
     * @return the exception to throw
     */
    static OrtexException failure(String doing, OrtException e) {
        return new OrtexException(ErrorCode.FAIL, doing + " failed in ONNX Runtime: " + message(e), e);
    }

    /**
     * Gets the message of an ONNX Runtime exception without its "Error code - X - message:" preamble.
     *
     * @param e the exception
     * @return the message
     */
    static String message(OrtException e) {
        String m = String.valueOf(e.getMessage());
        int at = m.indexOf("message: ");
        return at >= 0 ? m.substring(at + "message: ".length()).strip() : m.strip();
    }
}
