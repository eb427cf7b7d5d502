/**
 * ONNX model files for Ortex: the protobuf schema, reading and writing models with external data, the
 * {@code TensorProto} codec, and the graph representation behind the SPI's read-only graph view. Its packages are
 * for the other Ortex modules, not for applications or EPs.
 */
module io.ortex.onnx {
    requires transitive io.ortex.api;
    requires com.google.protobuf;
    requires static org.osgi.annotation.bundle;
    requires static org.osgi.annotation.versioning;

    exports io.ortex.onnx to io.ortex.runtime, io.ortex.shell;
    exports io.ortex.onnx.proto to io.ortex.runtime, io.ortex.shell;
}
