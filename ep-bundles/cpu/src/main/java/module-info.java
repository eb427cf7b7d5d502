/**
 * The CPU execution provider: pure-Java kernels for the ONNX operator set, the fallback that runs every node no
 * other EP takes. Exports nothing; it is found through {@link io.ortex.api.spi.EpFactory}.
 */
module io.ortex.ep.cpu {
    requires io.ortex.api;
    requires org.slf4j;
    requires static org.osgi.service.component.annotations;
    // optional: the kernels use the Vector API when the JVM has the module (see linalg.VectorSupport)
    requires static jdk.incubator.vector;

    provides io.ortex.api.spi.EpFactory with io.ortex.ep.cpu.CpuEpFactory;
}
