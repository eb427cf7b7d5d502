/**
 * The ONNX protobuf messages, generated at build time from {@code src/main/proto/onnx.proto}.
 */
@org.osgi.annotation.bundle.Export(attribute = {"ortex.internal=true", "mandatory:=ortex.internal"})
@org.osgi.annotation.versioning.Version("0.1.0")
package io.ortex.onnx.proto;
