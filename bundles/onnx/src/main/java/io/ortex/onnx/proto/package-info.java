/**
 * The ONNX protobuf messages, generated at build time from {@code src/main/proto/onnx.proto}.
 */
@org.osgi.annotation.bundle.Export
@org.osgi.annotation.versioning.Version("0.1.0")
package io.ortex.onnx.proto;
