/**
 * The server in an OSGi framework: Declarative Services components that start the model repository (configured
 * through ConfigAdmin, PID {@code io.ortex.serve}), publish the protocol's servlet to the HTTP Whiteboard, run its
 * gRPC endpoint, and offer the Gogo command {@code ortex:models}. They are thin: the protocol and the repository are
 * in {@code io.ortex.serve.internal}. Private to the bundle.
 */
package io.ortex.serve.osgi;
