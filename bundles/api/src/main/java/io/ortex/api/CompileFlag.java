package io.ortex.api;

/**
 * Flags of a {@link ModelCompiler}, ONNX Runtime's {@code OrtCompileApiFlags}. Without any, compiling writes a model
 * even when no EP compiled a node, and overwrites an existing output file.
 */
public enum CompileFlag {
    /** Fail, writing nothing, when no EP compiled any node ({@code OrtCompileApiFlags_ERROR_IF_NO_NODES_COMPILED}). */
    ERROR_IF_NO_NODES_COMPILED,
    /** Fail, leaving the file as it is, when the output file exists ({@code ..._ERROR_IF_OUTPUT_FILE_EXISTS}). */
    ERROR_IF_OUTPUT_FILE_EXISTS
}
