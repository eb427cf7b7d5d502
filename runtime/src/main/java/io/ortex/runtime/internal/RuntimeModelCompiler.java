package io.ortex.runtime.internal;

import io.ortex.api.CompileFlag;
import io.ortex.api.CompileProgressListener;
import io.ortex.api.CompileResult;
import io.ortex.api.ErrorCode;
import io.ortex.api.GraphOptimizationLevel;
import io.ortex.api.InitializerPlacement;
import io.ortex.api.InvalidArgumentException;
import io.ortex.api.ModelCompiler;
import io.ortex.api.OrtexException;
import io.ortex.api.SessionOptions;
import io.ortex.onnx.ModelReader;
import io.ortex.onnx.OnnxModel;
import io.ortex.runtime.internal.epcontext.EpContextGeneration;
import io.ortex.runtime.internal.epcontext.EpContextOutput;
import io.ortex.runtime.internal.epcontext.EpContextSettings;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.function.Consumer;

/**
 * The runtime's compile API: copies the session options it was made from, then for each compilation creates a
 * session with {@code ep.context_enable=1} and the chosen embed mode and output, and closes it again. Defaults are
 * ONNX Runtime's compile-API defaults: an existing output file is overwritten and a model is written even when no
 * EP compiled a node, unless the flags say otherwise. Not thread safe.
 */
final class RuntimeModelCompiler implements ModelCompiler {
    private final RuntimeEnvironment env;
    private final SessionOptions options;
    private Path inputFile;
    private byte[] inputBytes;
    private boolean embed;
    private Set<CompileFlag> flags = EnumSet.noneOf(CompileFlag.class);
    private CompileProgressListener listener;
    private InitializerPlacement placement;
    private Path binaryFolder;
    private String binaryName;
    private GraphOptimizationLevel level = GraphOptimizationLevel.DISABLE_ALL;

    RuntimeModelCompiler(RuntimeEnvironment env, SessionOptions options) {
        this.env = env;
        this.options = copy(Objects.requireNonNull(options, "options"));
    }

    private static SessionOptions copy(SessionOptions o) {
        SessionOptions c = new SessionOptions();
        o.config().forEach(c::config);
        c.intraOpThreads(o.intraOpThreads());
        for (SessionOptions.EpAppend a : o.appendedExecutionProviders()) {
            c.appendExecutionProvider(a.devices(), a.options());
        }
        if (o.selectionDelegate() != null) {
            c.selectionDelegate(o.selectionDelegate());
        } else if (o.selectionPolicy() != null) {
            c.selectionPolicy(o.selectionPolicy());
        }
        return c;
    }

    @Override
    public ModelCompiler inputModel(Path model) {
        if (model == null || model.toString().isEmpty()) {
            throw new InvalidArgumentException("the input model path must not be empty");
        }
        this.inputFile = model;
        this.inputBytes = null;
        return this;
    }

    @Override
    public ModelCompiler inputModel(byte[] model) {
        if (model == null || model.length == 0) {
            throw new InvalidArgumentException("the input model bytes must not be empty");
        }
        this.inputBytes = model;
        this.inputFile = null;
        return this;
    }

    @Override
    public ModelCompiler embedMode(boolean embedPayloads) {
        this.embed = embedPayloads;
        return this;
    }

    @Override
    public ModelCompiler flags(Set<CompileFlag> compileFlags) {
        this.flags = compileFlags.isEmpty() ? EnumSet.noneOf(CompileFlag.class) : EnumSet.copyOf(compileFlags);
        return this;
    }

    @Override
    public ModelCompiler progressListener(CompileProgressListener progress) {
        this.listener = progress;
        return this;
    }

    @Override
    public ModelCompiler initializerPlacement(InitializerPlacement initializerPlacement) {
        this.placement = initializerPlacement;
        return this;
    }

    @Override
    public ModelCompiler epContextBinaryInformation(Path outputFolder, String modelName) {
        if (outputFolder == null || outputFolder.toString().isEmpty()) {
            throw new InvalidArgumentException("the EP context binaries' output folder must not be empty");
        }
        if (modelName == null || modelName.isEmpty()) {
            throw new InvalidArgumentException("the EP context binaries' model name must not be empty");
        }
        if (modelName.contains("/") || modelName.contains("\\") || modelName.equals(".") || modelName.equals("..")) {
            throw new InvalidArgumentException("the EP context binaries' model name '" + modelName
                    + "' must be a plain name, without path separators");
        }
        this.binaryFolder = outputFolder.toAbsolutePath().normalize();
        this.binaryName = modelName;
        return this;
    }

    @Override
    public ModelCompiler graphOptimizationLevel(GraphOptimizationLevel optimizationLevel) {
        this.level = Objects.requireNonNull(optimizationLevel, "level");
        return this;
    }

    @Override
    public CompileResult compileToFile(Path output) {
        Objects.requireNonNull(output, "output");
        return compile(EpContextOutput.toFile(output), output.toString());
    }

    @Override
    public CompileResult compileToFile() {
        checkInput();
        if (inputFile == null) {
            throw new InvalidArgumentException("a model compiled from bytes needs an output: give compileToFile a"
                    + " path, or compile to bytes or a stream");
        }
        return compileToFile(EpContextGeneration.defaultOutput(inputFile.toAbsolutePath()));
    }

    @Override
    public byte[] compileToBytes() {
        EpContextOutput out = EpContextOutput.toBytes(bytesFolder());
        compile(out, null);
        return out.bytes();
    }

    @Override
    public CompileResult compileToStream(Consumer<ByteBuffer> chunks) {
        Objects.requireNonNull(chunks, "chunks");
        return compile(EpContextOutput.toStream(chunks, bytesFolder()), null);
    }

    @Override
    public CompileResult compileToStream(OutputStream out) {
        Objects.requireNonNull(out, "out");
        CompileResult r = compileToStream(chunk -> {
            try {
                byte[] b = new byte[chunk.remaining()];
                chunk.get(b);
                out.write(b);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });
        try {
            out.flush();
        } catch (IOException e) {
            throw new OrtexException(ErrorCode.FAIL, "cannot flush the compiled model's stream: " + e.getMessage(), e);
        }
        return r;
    }

    /**
     * The folder for context binaries of a bytes or stream output: that of {@code ep.context_file_path}, else the
     * one given to {@link #epContextBinaryInformation}.
     */
    private Path bytesFolder() {
        Path file = EpContextSettings.of(options.config()).filePath();
        return file == null ? binaryFolder : file.toAbsolutePath().normalize().getParent();
    }

    /**
     * The start of context binary names relative to the model's folder, from {@link #epContextBinaryInformation}.
     *
     * @param modelFolder the compiled model's folder, or {@code null}
     * @return the prefix, or {@code null} when no binary information was given
     * @throws InvalidArgumentException when the binaries' folder is not the model's folder or inside it
     */
    private String binaryPrefix(Path modelFolder) {
        if (binaryName == null) {
            return null;
        }
        Path base = modelFolder == null ? binaryFolder : modelFolder.toAbsolutePath().normalize();
        if (!binaryFolder.startsWith(base)) {
            throw new InvalidArgumentException("the EP context binaries' output folder " + binaryFolder + " is not the"
                    + " compiled model's folder " + base + " nor inside it; the EPContext nodes could not name their"
                    + " binaries relative to the model");
        }
        List<String> parts = new ArrayList<>();
        base.relativize(binaryFolder).forEach(p -> parts.add(p.toString()));
        parts.removeIf(String::isEmpty);
        parts.add(binaryName);
        return String.join("/", parts);
    }

    private void checkInput() {
        if (inputFile == null && inputBytes == null) {
            throw new InvalidArgumentException("no input model: call inputModel first");
        }
        if (inputFile != null && !Files.isRegularFile(inputFile)) {
            throw new InvalidArgumentException(ErrorCode.NO_SUCH_FILE, "input model " + inputFile
                    + " does not exist", null);
        }
    }

    private CompileResult compile(EpContextOutput output, String filePath) {
        checkInput();
        SessionOptions o = copy(options);
        o.config(SessionOptions.EP_CONTEXT_ENABLE, "1");
        o.config(SessionOptions.EP_CONTEXT_EMBED_MODE, embed ? "1" : "0");
        if (filePath != null) {
            o.config(SessionOptions.EP_CONTEXT_FILE_PATH, filePath);
        }
        if (!embed && output.file() == null && bytesFolder() == null) {
            throw new InvalidArgumentException("compiling to bytes or a stream with context binaries in separate files"
                    + " needs " + SessionOptions.EP_CONTEXT_FILE_PATH + " (where the model will live); or embed them");
        }
        EpContextGeneration generation = new EpContextGeneration(EpContextSettings.of(o.config()), output,
                flags.contains(CompileFlag.ERROR_IF_OUTPUT_FILE_EXISTS),
                flags.contains(CompileFlag.ERROR_IF_NO_NODES_COMPILED) ? EpContextGeneration.WhenNothingCompiled.FAIL
                        : EpContextGeneration.WhenNothingCompiled.WRITE, listener)
                .placement(placement).binaryPrefix(binaryPrefix(output.folder()));
        o.config(SessionOptions.GRAPH_OPTIMIZATION_LEVEL, level.name());
        OnnxModel model = env.readModel(inputFile, inputBytes, o);
        env.open(model, o, generation).close();
        return generation.result();
    }
}
