package io.ortex.runtime.internal.epcontext;

import io.ortex.api.CompileProgressListener;
import io.ortex.api.CompileResult;
import io.ortex.api.ErrorCode;
import io.ortex.api.InvalidArgumentException;
import io.ortex.api.InvalidModelException;
import io.ortex.api.Names;
import io.ortex.api.OrtexException;
import io.ortex.api.SessionOptions;
import io.ortex.api.spi.EpContextNode;
import io.ortex.api.spi.GraphView;
import io.ortex.api.spi.NodeView;
import io.ortex.api.spi.ValueView;
import io.ortex.onnx.OnnxModel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The writing of one compiled model, from session creation with {@code ep.context_enable=1} or from the compile API:
 * where it goes, what to do when the output exists or when no EP compiled anything, and who hears the progress.
 * {@link #checkBeforePartitioning} runs before any EP sees the model, {@link #finish} after the EPs compiled. Used by
 * one session creation on one thread.
 */
public final class EpContextGeneration {
    private static final Logger LOG = LoggerFactory.getLogger("io.ortex.runtime.epcontext");

    /** What to do when no EP compiled a node. */
    public enum WhenNothingCompiled {
        /** Fail (compile API flag {@code ERROR_IF_NO_NODES_COMPILED}). */
        FAIL,
        /** Write nothing and carry on (session creation with {@code ep.context_enable=1}). */
        SKIP,
        /** Write the model anyway (the compile API without the flag). */
        WRITE
    }

    private final EpContextSettings settings;
    private final EpContextOutput output;
    private final boolean errorIfOutputExists;
    private final WhenNothingCompiled whenNothingCompiled;
    private final CompileProgressListener progress;
    private CompileResult result;
    private SharedContextStore sharedStore;
    private io.ortex.api.InitializerPlacement placement;
    private String binaryPrefix;

    /**
     * Creates the plan.
     *
     * @param settings the EPContext settings of the session
     * @param output where the model goes
     * @param errorIfOutputExists whether an existing output file is an error
     * @param whenNothingCompiled what to do when no EP compiled a node
     * @param progress the listener, or {@code null}
     */
    public EpContextGeneration(EpContextSettings settings, EpContextOutput output, boolean errorIfOutputExists,
                               WhenNothingCompiled whenNothingCompiled, CompileProgressListener progress) {
        this.settings = settings;
        this.output = output.createNew(errorIfOutputExists);
        this.errorIfOutputExists = errorIfOutputExists;
        this.whenNothingCompiled = whenNothingCompiled;
        this.progress = progress;
    }

    /**
     * Plans the generation a session's configuration asks for, as ONNX Runtime does for
     * {@code ep.context_enable=1}: output to {@code ep.context_file_path}, else {@code <model>_ctx.onnx} beside the
     * model; an existing file is an error; when no EP compiled a node nothing is written.
     *
     * @param model the model
     * @param config the session configuration
     * @return the plan, or {@code null} when generation is off
     * @throws InvalidArgumentException when the model came from bytes and no file path is set
     */
    public static EpContextGeneration fromSessionConfig(OnnxModel model, Map<String, String> config) {
        EpContextSettings s = EpContextSettings.of(config);
        if (!s.enabled()) {
            return null;
        }
        Path target = s.filePath();
        if (target == null) {
            target = model.path().map(EpContextGeneration::defaultOutput).orElseThrow(() ->
                    new InvalidArgumentException(SessionOptions.EP_CONTEXT_ENABLE + "=1 for a model loaded from bytes"
                            + " needs " + SessionOptions.EP_CONTEXT_FILE_PATH + ": both the compiled model's path and"
                            + " the model's path are empty"));
        }
        return new EpContextGeneration(s, EpContextOutput.toFile(target), true, WhenNothingCompiled.SKIP, null);
    }

    /**
     * Gets the default compiled model path of a model file: its path up to the last dot, then {@code _ctx.onnx}.
     *
     * @param model the model file
     * @return the path
     */
    public static Path defaultOutput(Path model) {
        String name = model.getFileName().toString();
        int dot = name.lastIndexOf('.');
        String stem = dot > 0 ? name.substring(0, dot) : name;
        return model.resolveSibling(stem + "_ctx.onnx");
    }

    /**
     * Gets the settings.
     *
     * @return the settings
     */
    public EpContextSettings settings() {
        return settings;
    }

    /**
     * Refuses what must fail before any EP work: a model that is already compiled (holds EPContext nodes), and an
     * output file that exists when that is an error.
     *
     * @param model the model
     * @throws InvalidModelException with code {@code INVALID_GRAPH} when the model is already compiled
     * @throws OrtexException when the output file exists and must not be replaced
     */
    public void checkBeforePartitioning(OnnxModel model) {
        NodeView compiled = findEpContext(model.graph());
        if (compiled != null) {
            throw new InvalidModelException(ErrorCode.INVALID_GRAPH, model.describe() + " is already compiled: it holds"
                    + " EPContext node " + Names.quote(compiled.displayName()) + " (source '"
                    + compiled.stringAttr(EpContextNode.SOURCE, "") + "'); load it without "
                    + SessionOptions.EP_CONTEXT_ENABLE + "=1, or re-compile the source model", null);
        }
        output.protect(sourceFiles(model));
        checkOutput();
    }

    /** The files a model is read from: the model file and the files its initializers' external data lives in. */
    private static List<Path> sourceFiles(OnnxModel model) {
        Set<Path> files = new LinkedHashSet<>();
        model.path().ifPresent(files::add);
        collectExternalFiles(model.graph(), files);
        return List.copyOf(files);
    }

    private static void collectExternalFiles(GraphView g, Set<Path> files) {
        for (ValueView v : g.initializers()) {
            v.externalData().ifPresent(info -> files.add(info.file()));
        }
        for (NodeView n : g.nodes()) {
            for (GraphView sub : n.subgraphs().values()) {
                collectExternalFiles(sub, files);
            }
        }
    }

    private void checkOutput() {
        if (errorIfOutputExists && output.file() != null && Files.exists(output.file())) {
            throw new OrtexException(ErrorCode.FAIL, "the compiled model " + output.file() + " exists already."
                    + " Please remove the EP context model if you want to re-generate it.");
        }
    }

    /**
     * Tells whether a model is already compiled: whether it holds an EPContext node, in any graph.
     *
     * @param model the model
     * @return true when it does
     */
    public static boolean isCompiled(OnnxModel model) {
        return findEpContext(model.graph()) != null;
    }

    private static NodeView findEpContext(GraphView g) {
        for (NodeView n : g.nodes()) {
            if (EpContextNode.isEpContext(n)) {
                return n;
            }
            for (GraphView sub : n.subgraphs().values()) {
                NodeView found = findEpContext(sub);
                if (found != null) {
                    return found;
                }
            }
        }
        return null;
    }

    /**
     * Reports progress to the listener, if any.
     *
     * @param done partitions compiled so far
     * @param total partitions in all
     */
    public void progress(int done, int total) {
        if (progress != null) {
            progress.progress(done, total);
        }
    }

    /**
     * Writes the compiled model once the EPs compiled.
     *
     * @param model the source model
     * @param partitions the main graph's partitions whose kernels gave a payload
     * @param compatibility the EPs' compatibility strings by EP name
     * @throws OrtexException when nothing was compiled and that is an error, or the model cannot be written
     */
    public void finish(OnnxModel model, List<CompiledPartition> partitions, Map<String, String> compatibility) {
        if (partitions.isEmpty()) {
            switch (whenNothingCompiled) {
                case FAIL:
                    throw new OrtexException(ErrorCode.FAIL, "Unable to compile any nodes of " + model.describe()
                            + ": no EP of the session compiled a partition it could save as an EPContext node");
                case SKIP:
                    LOG.warn("no EP compiled a node of {}; no compiled model is written", model.describe());
                    result = new CompileResult(Map.of(), List.of());
                    return;
                default:
                    LOG.info("no EP compiled a node of {}; the compiled model is written anyway", model.describe());
            }
        }
        checkOutput();
        boolean hasBlobs = partitions.stream().anyMatch(p -> !p.payload().sharedBlobs().isEmpty());
        SharedContextGroup group = null;
        if (settings.share() || hasBlobs) {
            Path folder = output.folder();
            if (folder == null) {
                throw new InvalidArgumentException("a compiled model written to a stream or bytes "
                        + (settings.share() ? "that shares EP contexts (" + SessionOptions.EP_SHARE_EP_CONTEXTS
                        + "=1)" : "whose EP gave shared blobs") + " needs " + SessionOptions.EP_CONTEXT_FILE_PATH
                        + ": its shared context binary goes beside the model");
            }
            group = settings.share() && sharedStore != null ? sharedStore.join(folder, output.stem())
                    : new SharedContextGroup(folder, output.stem() + "_shared.bin");
        }
        boolean ownGroup = group != null && !(settings.share() && sharedStore != null);
        EpContextModelBuilder.Built built = EpContextModelBuilder.build(model, partitions, compatibility, settings,
                binaryPrefix != null ? binaryPrefix : output.stem(), group);
        InitializerPlacer.Placed placed = null;
        if (placement != null) {
            String dataName = settings.externalInitializersFile() != null ? settings.externalInitializersFile()
                    : output.stem() + "_initializers.bin";
            placed = InitializerPlacer.place(model, built.model(), placement, output.folder(), output.file(),
                    dataName);
        }
        List<Path> files = new ArrayList<>(output.write(built, placed != null ? null
                : settings.externalInitializersFile(), placed, ownGroup ? group : null));
        if (group != null && !ownGroup && settings.stopShare()) {
            Path binary = sharedStore.finish(group);
            if (binary != null) {
                files.add(binary);
            }
        }
        result = new CompileResult(built.nodesByEp(), files);
    }

    /**
     * Sets the environment's store of shared EP contexts, which a session with {@code ep.share_ep_contexts=1} joins;
     * without one, such a session's shared context binary holds its own model's entries only.
     *
     * @param store the store
     * @return this plan
     */
    public EpContextGeneration sharing(SharedContextStore store) {
        this.sharedStore = store;
        return this;
    }

    /**
     * Sets where the compiled model keeps its remaining initializers; without one they are embedded, or all moved to
     * {@code ep.context_model_external_initializers_file_name} when that is set. With one, that setting only names
     * the external initializers file (default {@code <model stem>_initializers.bin}).
     *
     * @param initializerPlacement the placement, or {@code null}
     * @return this plan
     */
    public EpContextGeneration placement(io.ortex.api.InitializerPlacement initializerPlacement) {
        this.placement = initializerPlacement;
        return this;
    }

    /**
     * Sets the start of context binary names in embed mode 0, relative to the model's folder with {@code /} as
     * separator (such as {@code bins/model}); each EP's binary is then {@code <prefix>_<EP>.bin}. Without it the
     * prefix is the model file's name without its extension.
     *
     * @param prefix the prefix, or {@code null} for the default
     * @return this plan
     */
    public EpContextGeneration binaryPrefix(String prefix) {
        this.binaryPrefix = prefix;
        return this;
    }

    /**
     * Gets what was written.
     *
     * @return the result, or {@code null} before {@link #finish}
     */
    public CompileResult result() {
        return result;
    }

    /**
     * Gets the output.
     *
     * @return the output
     */
    public EpContextOutput output() {
        return output;
    }
}
