package io.ortex.ep.ort;

import io.ortex.api.spi.EpLibraryLoader;
import io.ortex.api.spi.LoadedEpLibrary;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A test loader that drives the plugin-EP bridge with ONNX Runtime's built-in CPU EP devices, as no plugin-EP
 * library ships in a package registry reachable here: a file ending in {@value #SUFFIX} "loads" a library whose EP
 * {@value #EP} has ONNX Runtime's {@code CPUExecutionProvider} devices, and whose unregistration is recorded instead
 * of reaching ONNX Runtime (where nothing was registered). Everything else is the bridge's own code.
 */
public final class BuiltInDeviceLoader implements EpLibraryLoader {
    /** The file suffix this loader takes. */
    static final String SUFFIX = ".builtin";
    /** The Ortex EP name of the bridged devices. */
    static final String EP = "BridgedCpuExecutionProvider";
    /** The names unregistered, in order. */
    static final List<String> UNREGISTERED = new CopyOnWriteArrayList<>();
    /** The libraries loaded, in order. */
    static final List<PluginLibrary> LOADED = new CopyOnWriteArrayList<>();

    /** Called by ServiceLoader. */
    public BuiltInDeviceLoader() {
    }

    @Override
    public String description() {
        return "test libraries bridging ONNX Runtime's CPU EP (" + SUFFIX + ")";
    }

    @Override
    public boolean accepts(Path file) {
        return file.getFileName().toString().endsWith(SUFFIX);
    }

    @Override
    public LoadedEpLibrary load(String name, Path file, Map<String, String> environmentConfig) {
        PluginLibrary library = new PluginLibrary(name, file, UNREGISTERED::add);
        library.factories(List.of(new PluginEpFactory(library, EP, "CPUExecutionProvider", "Microsoft", null)));
        LOADED.add(library);
        return library;
    }
}
