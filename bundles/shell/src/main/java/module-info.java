/**
 * The Ortex command line ({@code ortex run|test|devices|eps|demo}) and, later, the Gogo shell commands built on the
 * same command classes.
 */
module io.ortex.shell {
    requires io.ortex.api;
    requires io.ortex.onnx;
    requires com.google.protobuf;
    requires com.fasterxml.jackson.core;

    exports io.ortex.shell;
}
