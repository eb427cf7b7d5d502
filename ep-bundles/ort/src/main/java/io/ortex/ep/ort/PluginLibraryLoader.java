package io.ortex.ep.ort;

import ai.onnxruntime.OrtEnvironment;
import ai.onnxruntime.OrtEpDevice;
import ai.onnxruntime.OrtException;
import io.ortex.api.ErrorCode;
import io.ortex.api.InvalidArgumentException;
import io.ortex.api.spi.EpFactory;
import io.ortex.api.spi.EpLibraryLoader;
import io.ortex.api.spi.LoadedEpLibrary;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.osgi.service.component.annotations.Component;

/**
 * The bridge to ONNX Runtime's native plugin-EP libraries (a vendor's NPU or GPU EP shipped as a {@code .so}):
 * {@link io.ortex.api.Environment#registerLibrary} hands such a file here, and this loader registers it with ONNX
 * Runtime ({@code registerExecutionProviderLibrary}) under the same name, so a name ending in {@code .virtual} lets
 * it offer virtual devices as in ONNX Runtime. Each EP the library adds becomes an Ortex EP ({@link PluginEpFactory})
 * whose devices are the library's ONNX Runtime EP devices; unloading waits for the ONNX Runtime sessions using them
 * ({@link PluginLibrary}). Errors name the file: a missing file, a file that is not a shared library, a library
 * without the plugin entry points ({@code CreateEpFactories}, {@code ReleaseEpFactory}). In an OSGi framework it is
 * a Declarative Services component registered as an {@link EpLibraryLoader} service. Thread safe: registrations are
 * serialized on ONNX Runtime's environment, which every revision of this bundle shares.
 */
@Component(service = EpLibraryLoader.class)
public final class PluginLibraryLoader implements EpLibraryLoader {
    /** Creates the loader; called by {@link java.util.ServiceLoader} or the OSGi runtime. */
    public PluginLibraryLoader() {
    }

    @Override
    public String description() {
        return "ONNX Runtime plugin-EP libraries (.so, .dylib, .dll)";
    }

    /** Accepts shared libraries by name ({@code .so}, {@code .so.N}, {@code .dylib}, {@code .dll}) or signature. */
    @Override
    public boolean accepts(Path file) {
        String n = file.getFileName().toString().toLowerCase(Locale.ROOT);
        if (n.endsWith(".so") || n.contains(".so.") || n.endsWith(".dylib") || n.endsWith(".dll")) {
            return true;
        }
        try (InputStream in = Files.newInputStream(file)) {
            byte[] h = in.readNBytes(4);
            boolean elf = h.length == 4 && h[0] == 0x7f && h[1] == 'E' && h[2] == 'L' && h[3] == 'F';
            boolean pe = h.length >= 2 && h[0] == 'M' && h[1] == 'Z';
            boolean machO = h.length == 4 && (h[0] & 0xff) == 0xcf && (h[1] & 0xff) == 0xfa && h[2] == (byte) 0xed
                    && (h[3] & 0xff) == 0xfe;
            return elf || pe || machO;
        } catch (IOException e) {
            return false;
        }
    }

    @Override
    public LoadedEpLibrary load(String name, Path file, Map<String, String> environmentConfig) {
        Path path = file.toAbsolutePath().normalize();
        if (!Files.isRegularFile(path)) {
            throw new InvalidArgumentException(ErrorCode.NO_SUCH_FILE, "ONNX Runtime plugin-EP library '" + name
                    + "': " + path + " does not exist", null);
        }
        OrtEnvironment env = OrtRuntime.environment();
        synchronized (env) {
            Set<String> before = new HashSet<>();
            OrtRuntime.epDevices().forEach(d -> before.add(d.getEpName()));
            try {
                env.registerExecutionProviderLibrary(name, path.toString());
            } catch (OrtException e) {
                throw new InvalidArgumentException(ErrorCode.INVALID_ARGUMENT, "ONNX Runtime plugin-EP library '"
                        + name + "': ONNX Runtime cannot register " + path + ": " + OrtRuntime.message(e), e);
            }
            PluginLibrary library = new PluginLibrary(name, path);
            try {
                Map<String, OrtEpDevice> added = new LinkedHashMap<>();
                for (OrtEpDevice d : OrtRuntime.epDevices()) {
                    if (!before.contains(d.getEpName())) {
                        added.putIfAbsent(d.getEpName(), d);
                    }
                }
                List<EpFactory> factories = new ArrayList<>();
                for (OrtEpDevice d : added.values()) {
                    factories.add(new PluginEpFactory(library, d.getEpName(), d.getEpVendor(),
                            d.getEpMetadata().get("version")));
                }
                library.factories(factories);
                return library;
            } catch (RuntimeException e) {
                library.close();
                throw e;
            }
        }
    }
}
