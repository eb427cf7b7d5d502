package io.ortex.api;

import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Set;
import java.util.function.Consumer;

/**
 * The compile API, ONNX Runtime's {@code OrtModelCompilationOptions} and {@code CompileModel}: creates a session for a
 * model with the EPs chosen as for any session (the {@link SessionOptions} it was made from: explicit EPs, policy or
 * delegate, configuration), has them compile their partitions, and writes the compiled model, in which each
 * compiled partition is an {@code EPContext} node and every other node is kept as it was. The session is closed
 * before the call returns. Obtained from {@link Environment#modelCompiler}; set the input, then call one of the
 * {@code compileTo...} methods. Not thread safe; may be used for several compilations.
 *
 * <p>Differences from session creation with {@code ep.context_enable=1}: the output is chosen here (a file, bytes or
 * a stream), an existing output file is overwritten unless {@link CompileFlag#ERROR_IF_OUTPUT_FILE_EXISTS} is set,
 * and a model is written even when no EP compiled a node unless {@link CompileFlag#ERROR_IF_NO_NODES_COMPILED} is
 * set. A model that is already compiled (holds EPContext nodes) cannot be compiled again. A failed compilation leaves
 * no file behind and an existing output file unchanged.
 */
public interface ModelCompiler {
    /**
     * Compiles the model in this file (and resets a byte input). External data and an output written to the
     * default place ({@code <model>_ctx.onnx}) are relative to its folder.
     *
     * @param model the {@code .onnx} file
     * @return this compiler
     */
    ModelCompiler inputModel(Path model);

    /**
     * Compiles the model held in these bytes (and resets a file input).
     *
     * @param model the serialized {@code ModelProto}, not empty; not copied, so leave it unchanged until compiled
     * @return this compiler
     * @throws InvalidArgumentException when the array is empty
     */
    ModelCompiler inputModel(byte[] model);

    /**
     * Chooses where payloads go: {@code true} inside the EPContext nodes, {@code false} (the default) in context
     * binary files beside the output model ({@link SessionOptions#EP_CONTEXT_EMBED_MODE}).
     *
     * @param embed whether to embed
     * @return this compiler
     */
    ModelCompiler embedMode(boolean embed);

    /**
     * Sets the flags, replacing earlier ones.
     *
     * @param flags the flags, possibly empty
     * @return this compiler
     */
    ModelCompiler flags(Set<CompileFlag> flags);

    /**
     * Sets the listener that hears the progress of each compilation.
     *
     * @param listener the listener, or {@code null} for none
     * @return this compiler
     */
    ModelCompiler progressListener(CompileProgressListener listener);

    /**
     * Sets where the compiled model keeps the initializers it still holds (those of nodes no EP compiled), ONNX
     * Runtime's {@code SetOutputModelGetInitializerLocationFunc}. Without a placement (the default) they are
     * embedded, or all moved to {@link SessionOptions#EP_CONTEXT_MODEL_EXTERNAL_INITIALIZERS_FILE_NAME} when that is
     * set. Decisions other than {@link InitializerPlacement.Decision#EMBED} need an output folder: a file output, or
     * for bytes and streams {@link SessionOptions#EP_CONTEXT_FILE_PATH} or {@link #epContextBinaryInformation}.
     *
     * @param placement the placement, or {@code null} for the default
     * @return this compiler
     */
    ModelCompiler initializerPlacement(InitializerPlacement placement);

    /**
     * Sets where embed mode 0 writes the context binaries, ONNX Runtime's {@code SetEpContextBinaryInformation}:
     * into {@code outputFolder}, each named {@code <modelName>_<EP>.bin}. For a file output the folder must be the
     * compiled model's folder or lie inside it, so that the nodes can name their binary relative to the model; for
     * bytes and streams without {@link SessionOptions#EP_CONTEXT_FILE_PATH} it is taken as the folder where the model
     * will live. A relative folder is resolved against the working directory. Without it binaries go beside the
     * model, named after the model file. The shared context binary of {@code ep.share_ep_contexts} keeps its name.
     *
     * @param outputFolder the binaries' folder
     * @param modelName the start of the binaries' names, not empty, without separators
     * @return this compiler
     * @throws InvalidArgumentException when either is empty, or the name holds a path separator
     */
    ModelCompiler epContextBinaryInformation(Path outputFolder, String modelName);

    /**
     * Sets how much the graph is optimized before the EPs see it, ONNX Runtime's {@code SetGraphOptimizationLevel}.
     * The default is {@link GraphOptimizationLevel#DISABLE_ALL}.
     *
     * @param level the level, not {@code null}
     * @return this compiler
     */
    ModelCompiler graphOptimizationLevel(GraphOptimizationLevel level);

    /**
     * Compiles to a file; context binaries go beside it.
     *
     * @param output the compiled model's path
     * @return what was written
     * @throws InvalidArgumentException when no input was set, or {@code output} is a folder
     * @throws OrtexException when compilation fails; nothing is left behind
     */
    CompileResult compileToFile(Path output);

    /**
     * Compiles to the default file: {@code <model>_ctx.onnx} beside a file input.
     *
     * @return what was written
     * @throws InvalidArgumentException when the input is bytes, which have no default output
     */
    CompileResult compileToFile();

    /**
     * Compiles to bytes. Payloads must then be embedded, or {@link SessionOptions#EP_CONTEXT_FILE_PATH} must name
     * where the model will live so that context binaries can be written beside it.
     *
     * @return the serialized compiled model
     */
    byte[] compileToBytes();

    /**
     * Compiles to a stream of chunks of at most 64 KiB each, handed over in order; a chunk's buffer is only valid
     * during the call. An exception thrown by the consumer aborts the compilation and is passed on.
     *
     * @param chunks the consumer of the model's bytes
     * @return what was written
     */
    CompileResult compileToStream(Consumer<ByteBuffer> chunks);

    /**
     * Compiles to an output stream, which is flushed but not closed.
     *
     * @param out the stream
     * @return what was written
     * @throws OrtexException when writing fails
     */
    CompileResult compileToStream(OutputStream out);
}
