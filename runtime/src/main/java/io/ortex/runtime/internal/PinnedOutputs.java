package io.ortex.runtime.internal;

import io.ortex.api.InvalidArgumentException;
import io.ortex.api.Names;
import io.ortex.api.Tensor;
import io.ortex.api.TensorInfo;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The heap tensors a caller pinned as a run's outputs ({@link io.ortex.api.Session#run(Map, Map,
 * io.ortex.api.RunOptions)}): checked against the model's outputs before the run, handed to the run's arena so
 * that the kernels write into them, and filled at the end from whatever the run computed elsewhere.
 */
final class PinnedOutputs {
    private final Map<String, Tensor> targets;

    private PinnedOutputs(Map<String, Tensor> targets) {
        this.targets = targets;
    }

    /**
     * Checks the caller's tensors: each names an output of the model, is a heap tensor of that output's type and of
     * a shape its declared dimensions allow, and has an array of its own (no other pinned tensor's, no input's).
     *
     * @param pinned the tensors by output name
     * @param outputs the model's outputs
     * @param feeds the run's inputs
     * @return the checked tensors
     * @throws InvalidArgumentException naming the first output at fault
     */
    static PinnedOutputs check(Map<String, Tensor> pinned, List<TensorInfo> outputs, Map<String, Tensor> feeds) {
        if (pinned.isEmpty()) {
            throw new InvalidArgumentException("pin at least one output; the model's outputs are " + names(outputs));
        }
        Set<Object> arrays = Collections.newSetFromMap(new IdentityHashMap<>());
        for (Tensor in : feeds.values()) {
            if (in != null && !in.isOffHeap()) {
                arrays.add(in.data());
            }
        }
        for (Map.Entry<String, Tensor> e : pinned.entrySet()) {
            String name = Names.quote(e.getKey());
            TensorInfo info = outputs.stream().filter(o -> o.name().equals(e.getKey())).findFirst().orElseThrow(
                    () -> new InvalidArgumentException("the model has no output " + name + "; its outputs are "
                            + names(outputs)));
            Tensor t = e.getValue();
            if (t == null) {
                throw new InvalidArgumentException("the tensor pinned for output " + name + " is null");
            }
            if (t.isOffHeap()) {
                throw new InvalidArgumentException("the tensor pinned for output " + name + " is off-heap; pin a heap "
                        + "tensor");
            }
            if (info.type() != null && t.type() != info.type()) {
                throw new InvalidArgumentException("output " + name + " is " + info.type() + ", the tensor pinned for "
                        + "it is " + t.type());
            }
            if (!fits(t.shape(), info.dims())) {
                throw new InvalidArgumentException("output " + name + " has shape " + info + ", the tensor pinned for "
                        + "it has shape " + Tensor.shapeString(t.shape()));
            }
            if (!arrays.add(t.data())) {
                throw new InvalidArgumentException("the tensor pinned for output " + name + " shares its array with an "
                        + "input or another pinned output; pin a tensor of its own");
            }
        }
        return new PinnedOutputs(new LinkedHashMap<>(pinned));
    }

    /**
     * Gets the pinned tensors by output name.
     *
     * @return the tensors, in the order the caller gave them
     */
    Map<String, Tensor> targets() {
        return targets;
    }

    /**
     * Fills each pinned tensor from the value the run computed for its output, unless the kernels wrote it there
     * already. A value held in another output's pinned array (a kernel that took the arrays in another order, or a
     * Reshape of an output that is itself an output) is copied aside first, so that no copy overwrites a value not
     * yet read.
     *
     * @param computed the run's outputs by name
     * @return the pinned tensors by output name, in the order given
     * @throws InvalidArgumentException when an output's type or shape differs from its tensor's
     */
    Map<String, Tensor> fill(Map<String, Tensor> computed) {
        Set<Object> arrays = Collections.newSetFromMap(new IdentityHashMap<>());
        targets.values().forEach(t -> arrays.add(t.data()));
        Map<String, Tensor> sources = new LinkedHashMap<>();
        for (Map.Entry<String, Tensor> e : targets.entrySet()) {
            Tensor value = computed.get(e.getKey());
            if (!value.isOffHeap() && value.data() != e.getValue().data() && arrays.contains(value.data())) {
                value = copyOf(value);
            }
            sources.put(e.getKey(), value);
        }
        Map<String, Tensor> result = new LinkedHashMap<>();
        for (Map.Entry<String, Tensor> e : targets.entrySet()) {
            try {
                sources.get(e.getKey()).copyTo(e.getValue());
            } catch (InvalidArgumentException x) {
                Tensor value = sources.get(e.getKey());
                throw new InvalidArgumentException("output " + Names.quote(e.getKey()) + " came out as "
                        + value.type() + " " + Tensor.shapeString(value.shape()) + ", the tensor pinned for it is "
                        + e.getValue().type() + " " + Tensor.shapeString(e.getValue().shape()));
            }
            result.put(e.getKey(), e.getValue());
        }
        return result;
    }

    private static Tensor copyOf(Tensor value) {
        Tensor copy = Tensor.zeros(value.type(), value.shape());
        value.copyTo(copy);
        return copy;
    }

    private static boolean fits(long[] shape, long[] dims) {
        if (dims == null) {
            return true;
        }
        if (dims.length != shape.length) {
            return false;
        }
        for (int i = 0; i < dims.length; i++) {
            if (dims[i] >= 0 && dims[i] != shape[i]) {
                return false;
            }
        }
        return true;
    }

    private static String names(List<TensorInfo> outputs) {
        return outputs.stream().map(o -> Names.quote(o.name())).toList().toString();
    }
}
