/**
 * The ONNX Runtime execution provider: partitions that ONNX Runtime can run are handed to it as standalone models and
 * run with its native kernels; native ONNX Runtime plugin-EP libraries are registered through it and offered as Ortex
 * EP devices. Exports nothing; it is found through {@link io.ortex.api.spi.EpFactory} and
 * {@link io.ortex.api.spi.EpLibraryLoader}. ONNX Runtime itself comes from the module
 * {@code com.microsoft.onnxruntime}, loaded once per JVM.
 */
module io.ortex.ep.ort {
    requires io.ortex.api;
    requires com.microsoft.onnxruntime;
    requires org.slf4j;
    requires static org.osgi.service.component.annotations;

    provides io.ortex.api.spi.EpFactory with io.ortex.ep.ort.OrtEpFactory;
    provides io.ortex.api.spi.EpLibraryLoader with io.ortex.ep.ort.PluginLibraryLoader;
}
