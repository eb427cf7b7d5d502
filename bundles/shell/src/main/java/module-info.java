/**
 * The Ortex command line ({@code ortex run|test|compile|inspect|devices|eps|demo}) and, in an OSGi framework, the
 * Gogo shell commands ({@code ortex:*}) and the {@link io.ortex.shell.CommandLine} service built on the same command
 * classes.
 */
module io.ortex.shell {
    requires io.ortex.api;
    requires io.ortex.onnx;
    requires com.google.protobuf;
    requires com.fasterxml.jackson.core;
    // the OSGi components (io.ortex.shell.osgi) are used only inside a framework
    requires static osgi.core;
    requires static org.osgi.service.component.annotations;
    requires static org.osgi.service.cm;
    requires static org.apache.felix.gogo.runtime;

    exports io.ortex.shell;
}
