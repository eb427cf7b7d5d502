package io.ortex.api;

import java.nio.file.Path;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * A model loaded, partitioned among execution providers and compiled, ready to run.
 *
 * <p>{@link #run} may be called from many threads at once. {@link #close()} waits for the runs in flight, then
 * releases every EP the session holds; the EP libraries it used can then be unregistered.
 */
public interface Session extends AutoCloseable {
    /**
     * Gets the session's id, unique in its environment, such as {@code s1}.
     *
     * @return the id
     */
    String id();

    /**
     * Gets where the model came from: its path, or {@code (bytes)}.
     *
     * @return the model's source
     */
    String modelSource();

    /**
     * Passes options to the session's EPs after creation (ONNX Runtime's {@code SetEpDynamicOptions}); each EP
     * takes the keys it knows.
     *
     * @param options the options
     */
    void setEpDynamicOptions(Map<String, String> options);
    /**
     * Gets the model's inputs, in graph order; initializers that are also listed as graph inputs are left out.
     *
     * @return the inputs
     */
    List<TensorInfo> inputs();

    /**
     * Gets the model's outputs, in graph order.
     *
     * @return the outputs
     */
    List<TensorInfo> outputs();

    /**
     * Runs the model and returns every output.
     *
     * <p>The input tensors are only read, never modified or kept. The output tensors are new and belong to the
     * caller: no later run reuses their arrays.
     *
     * @param inputs a tensor for each required input, by name
     * @return the outputs by name, in graph order
     * @throws InvalidArgumentException when an input is missing, unknown, or of the wrong type or rank
     * @throws OrtexException when a node fails; the message names the node
     */
    Map<String, Tensor> run(Map<String, Tensor> inputs);

    /**
     * Runs a model that has one input and returns every output, as {@link #run(Map)} does.
     *
     * @param input the tensor for the model's only input
     * @return the outputs by name, in graph order
     * @throws InvalidArgumentException when the model does not have exactly one input (the message lists them),
     *     or the tensor is of the wrong type or rank
     * @throws OrtexException when a node fails; the message names the node
     */
    default Map<String, Tensor> run(Tensor input) {
        Objects.requireNonNull(input, "input");
        List<TensorInfo> inputs = inputs();
        if (inputs.size() != 1) {
            String names = inputs.stream().map(TensorInfo::name).collect(Collectors.joining(", "));
            throw new InvalidArgumentException("run(Tensor) needs a model with one input; " + modelSource()
                    + (inputs.isEmpty() ? " has none: call run(Map.of())"
                            : " has " + inputs.size() + " (" + names + "): pass them by name with run(Map)"));
        }
        return run(Map.of(inputs.get(0).name(), input));
    }

    /**
     * Runs the model and returns the named outputs.
     *
     * @param inputs a tensor for each required input, by name
     * @param outputNames the outputs wanted
     * @return the outputs by name, in the order asked
     */
    Map<String, Tensor> run(Map<String, Tensor> inputs, Collection<String> outputNames);

    /**
     * Runs the model with run options and returns the named outputs. With an EP that captures graphs, the run
     * replays the graph of {@link RunOptions#GRAPH_ID} once it is captured; before that it runs normally, again
     * until the EP has captured it (at most {@value RunOptions#CAPTURE_RUNS} runs in one call).
     *
     * @param inputs a tensor for each required input, by name
     * @param outputNames the outputs wanted
     * @param options the run's options
     * @return the outputs by name, in the order asked
     * @throws InvalidArgumentException when an input or a run option is wrong; the message names it
     */
    Map<String, Tensor> run(Map<String, Tensor> inputs, Collection<String> outputNames, RunOptions options);

    /**
     * Runs the model and writes the outputs into tensors the caller made for them (ONNX Runtime's pinned outputs): a
     * caller that runs a model many times reuses its own output arrays instead of getting new ones from every run,
     * which saves the allocation and the first touch of new memory that large outputs cost. The CPU EP's kernels
     * write such an output straight into the pinned array; an output computed elsewhere (in an EP's own memory, by
     * a control-flow node, or passed through from an input) is copied into it at the end of the run.
     *
     * <p>Each pinned tensor must be a heap tensor of the output's exact type and shape. The run overwrites its
     * elements: until the call returns, no other thread may read it or pass it to another run, and it must not be
     * one of this run's inputs. When the run fails, what the pinned tensors hold is unspecified. Added in package
     * version 0.8.0; the default runs {@link #run(Map, Collection, RunOptions)} and copies each output into its
     * tensor.
     *
     * @param inputs a tensor for each required input, by name
     * @param pinnedOutputs the outputs wanted, each with the heap tensor to write it into
     * @param options the run's options
     * @return the pinned tensors by output name, in the order given, now holding the outputs
     * @throws InvalidArgumentException when an input or a run option is wrong, an output is unknown, or a pinned tensor
     *     is off-heap, an input of the run, pinned twice, or of another type or shape than its output; the message
     *     names the output
     */
    default Map<String, Tensor> run(Map<String, Tensor> inputs, Map<String, Tensor> pinnedOutputs,
                                    RunOptions options) {
        Map<String, Tensor> computed = run(inputs, pinnedOutputs.keySet(), options);
        Map<String, Tensor> result = new LinkedHashMap<>();
        for (Map.Entry<String, Tensor> e : pinnedOutputs.entrySet()) {
            try {
                computed.get(e.getKey()).copyTo(e.getValue());
            } catch (InvalidArgumentException x) {
                throw new InvalidArgumentException("output '" + e.getKey() + "': " + x.getMessage());
            }
            result.put(e.getKey(), e.getValue());
        }
        return result;
    }

    /**
     * Gets the names of the EPs this session uses, in priority order.
     *
     * @return the EP names
     */
    List<String> executionProviders();

    /**
     * Gets which EP runs each node of the main graph, in execution order.
     *
     * @return one entry per node
     */
    List<NodeAssignment> assignment();

    /**
     * Gets the model's metadata ({@code metadata_props}) plus {@code producer_name}, {@code graph_name} and
     * {@code domain} where present.
     *
     * @return the metadata, sorted by key
     */
    Map<String, String> modelMetadata();

    /**
     * Writes the profile the session has recorded since it was created (ONNX Runtime's {@code EndProfiling}), when
     * its options enabled profiling ({@link SessionOptions#enableProfiling}). Recording goes on; a later call writes
     * the file again with everything recorded until then.
     *
     * @return the trace file written, or empty when profiling is off
     * @throws OrtexException when the file cannot be written
     */
    default Optional<Path> endProfiling() {
        return Optional.empty();
    }

    /**
     * Lists the copies between memories that this session's plan makes (main graph first, then nested subgraphs),
     * with how many were made and how many bytes they moved so far: none where every EP works in host memory.
     * Added in package version 0.5.0; the default lists none.
     *
     * @return the copies, in plan order
     */
    default List<ValueCopy> valueCopies() {
        return List.of();
    }

    /**
     * Waits for runs in flight, then releases the EPs and compiled kernels of this session. Closing twice does
     * nothing; a run after close throws.
     */
    @Override
    void close();
}
