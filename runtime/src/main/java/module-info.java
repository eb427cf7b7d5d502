/**
 * The Ortex runtime: environments, hardware discovery, the EP registry, partitioning, compilation and execution of
 * sessions. It exports no package: applications reach it through {@link io.ortex.api.Environment}.
 */
module io.ortex.runtime {
    requires io.ortex.api;
    requires io.ortex.onnx;
    requires com.google.protobuf;
    requires org.slf4j;
    // the OSGi wiring (io.ortex.runtime.osgi) is used only inside a framework
    requires static osgi.core;
    requires static org.osgi.service.component.annotations;
    requires static org.osgi.service.metatype.annotations;
    requires static org.osgi.service.event;

    uses io.ortex.api.spi.EpFactory;
    uses io.ortex.api.spi.EpLibraryLoader;

    provides io.ortex.api.EnvironmentFactory with io.ortex.runtime.internal.RuntimeEnvironmentFactory;
}
