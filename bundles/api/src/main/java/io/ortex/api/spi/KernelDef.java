package io.ortex.api.spi;

import io.ortex.api.ElementType;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;

/**
 * What one registered kernel serves: an op of a domain over a range of opset versions, the element types of its
 * inputs, where its inputs and outputs live, and which outputs may reuse an input's buffer. The counterpart of ONNX
 * Runtime's {@code OrtKernelDef}, built with {@link #builder(String)} as with {@code OrtKernelDefBuilder}. Immutable.
 */
public final class KernelDef {
    /** The last opset version a definition with no upper bound serves. */
    public static final int NO_UNTIL = Integer.MAX_VALUE;

    private final String domain;
    private final String opType;
    private final int sinceVersion;
    private final int untilVersion;
    private final List<TypeConstraint> typeConstraints;
    private final Map<Integer, KernelMemoryType> inputMemory;
    private final Map<Integer, KernelMemoryType> outputMemory;
    private final Map<Integer, Integer> aliases;
    private final Map<Integer, Integer> inplace;

    private KernelDef(Builder b) {
        this.domain = b.domain;
        this.opType = b.opType;
        this.sinceVersion = b.sinceVersion;
        this.untilVersion = b.untilVersion;
        this.typeConstraints = List.copyOf(b.typeConstraints);
        this.inputMemory = Collections.unmodifiableMap(new TreeMap<>(b.inputMemory));
        this.outputMemory = Collections.unmodifiableMap(new TreeMap<>(b.outputMemory));
        this.aliases = Collections.unmodifiableMap(new TreeMap<>(b.aliases));
        this.inplace = Collections.unmodifiableMap(new TreeMap<>(b.inplace));
    }

    /**
     * Starts a definition for an op of the default ONNX domain, serving opset 1 and later until told otherwise.
     * Mirrors ONNX Runtime's {@code CreateKernelDefBuilder} with {@code KernelDefBuilder_SetOperatorType}.
     *
     * @param opType the op type, such as {@code MatMul}
     * @return the builder
     */
    public static Builder builder(String opType) {
        return new Builder(opType);
    }

    /**
     * Gets the op's domain. Mirrors {@code KernelDef_GetDomain}.
     *
     * @return the domain, {@code ""} for the default ONNX domain
     */
    public String domain() {
        return domain;
    }

    /**
     * Gets the op type. Mirrors {@code KernelDef_GetOperatorType}.
     *
     * @return the op type
     */
    public String opType() {
        return opType;
    }

    /**
     * Gets the first opset version served. Mirrors {@code KernelDef_GetSinceVersion}.
     *
     * @return the version, at least 1
     */
    public int sinceVersion() {
        return sinceVersion;
    }

    /**
     * Gets the last opset version served, inclusive. Mirrors the end version ONNX Runtime's
     * {@code KernelDefBuilder_SetSinceVersion} takes.
     *
     * @return the version, {@link #NO_UNTIL} for no upper bound
     */
    public int untilVersion() {
        return untilVersion;
    }

    /**
     * Gets the type constraints; a node matches when each constrained input's element type is among the allowed.
     * Mirrors ONNX Runtime's {@code KernelDefBuilder_AddTypeConstraint}.
     *
     * @return the constraints
     */
    public List<TypeConstraint> typeConstraints() {
        return typeConstraints;
    }

    /**
     * Gets where the kernel wants one input. Mirrors {@code KernelDef_GetInputMemType}.
     *
     * @param index the input's position
     * @return the placement, {@link KernelMemoryType#DEFAULT} unless set
     */
    public KernelMemoryType inputMemory(int index) {
        return inputMemory.getOrDefault(index, KernelMemoryType.DEFAULT);
    }

    /**
     * Gets where the kernel puts one output. Mirrors {@code KernelDef_GetOutputMemType}.
     *
     * @param index the output's position
     * @return the placement, {@link KernelMemoryType#DEFAULT} unless set
     */
    public KernelMemoryType outputMemory(int index) {
        return outputMemory.getOrDefault(index, KernelMemoryType.DEFAULT);
    }

    /**
     * Gets the outputs that are views of an input's buffer (the kernel returns the input's array unchanged, as a
     * Reshape does), output position to input position. The runtime places such an output where the input is read
     * and treats the two values as one buffer: it is freed (recycled, or closed back to its allocator) once, after the
     * last reader of either, and never written in place while either is still read. The kernel must return the input
     * itself or a view of it ({@link io.ortex.api.Tensor#reshape}, see {@link io.ortex.api.Tensor#isViewOf}); any
     * other tensor fails the run, naming the node and the kernel. Mirrors ONNX Runtime's
     * {@code KernelDefBuilder_AddInputOutputAliases}.
     *
     * @return the aliases
     */
    public Map<Integer, Integer> aliases() {
        return aliases;
    }

    /**
     * Gets the outputs that may be written into an input's buffer when nothing reads that input after the node,
     * output position to input position. Mirrors ONNX Runtime's {@code KernelDefBuilder_AddInputOutputMutableAliases}.
     *
     * @return the in-place pairs
     */
    public Map<Integer, Integer> inplace() {
        return inplace;
    }

    /**
     * Tells whether the definition serves an opset version, as ONNX Runtime's kernel lookup matches a node's
     * since-version against the registered range.
     *
     * @param opset the node's opset version for its domain
     * @return true when {@code since <= opset <= until}
     */
    public boolean serves(int opset) {
        return opset >= sinceVersion && opset <= untilVersion;
    }

    @Override
    public String toString() {
        return (domain.isEmpty() ? "" : domain + "::") + opType + "(" + sinceVersion
                + (untilVersion == NO_UNTIL ? "+" : "-" + untilVersion) + ")"
                + (typeConstraints.isEmpty() ? "" : " " + typeConstraints);
    }

    /**
     * The element types allowed for some inputs, the counterpart of {@code KernelDefBuilder_AddTypeConstraint}
     * (ONNX Runtime binds the name through the op's schema; here the inputs are named by position).
     *
     * @param name the type parameter's name, such as {@code T}
     * @param types the allowed element types
     * @param inputs the positions of the inputs it constrains
     */
    public record TypeConstraint(String name, Set<ElementType> types, List<Integer> inputs) {
        /**
         * Checks and copies the constraint.
         *
         * @param name the type parameter's name
         * @param types the allowed element types, at least one
         * @param inputs the positions of the inputs it constrains, at least one
         */
        public TypeConstraint {
            Objects.requireNonNull(name, "name");
            if (types == null || types.isEmpty() || inputs == null || inputs.isEmpty()) {
                throw new IllegalArgumentException("type constraint " + name + " needs types and inputs");
            }
            types = Collections.unmodifiableSet(EnumSet.copyOf(types));
            inputs = List.copyOf(inputs);
        }

        @Override
        public String toString() {
            return name + "=" + types + " on inputs " + inputs;
        }
    }

    /** Builds a {@link KernelDef}, the counterpart of ONNX Runtime's {@code OrtKernelDefBuilder}. Not thread safe. */
    public static final class Builder {
        private final String opType;
        private String domain = "";
        private int sinceVersion = 1;
        private int untilVersion = NO_UNTIL;
        private final List<TypeConstraint> typeConstraints = new ArrayList<>();
        private final Map<Integer, KernelMemoryType> inputMemory = new LinkedHashMap<>();
        private final Map<Integer, KernelMemoryType> outputMemory = new LinkedHashMap<>();
        private final Map<Integer, Integer> aliases = new LinkedHashMap<>();
        private final Map<Integer, Integer> inplace = new LinkedHashMap<>();

        private Builder(String opType) {
            if (opType == null || opType.isBlank()) {
                throw new IllegalArgumentException("a kernel definition needs an op type");
            }
            this.opType = opType;
        }

        /**
         * Sets the op's domain. Mirrors {@code KernelDefBuilder_SetDomain}.
         *
         * @param value the domain, {@code ""} (the default) for ONNX's
         * @return this builder
         */
        public Builder domain(String value) {
            this.domain = Objects.requireNonNull(value, "domain");
            return this;
        }

        /**
         * Sets the opset range served, both bounds inclusive. Mirrors {@code KernelDefBuilder_SetSinceVersion}.
         *
         * @param since the first version, at least 1
         * @param until the last version, at least {@code since}; {@link #NO_UNTIL} for no bound
         * @return this builder
         */
        public Builder versions(int since, int until) {
            if (since < 1 || until < since) {
                throw new IllegalArgumentException("kernel " + opType + ": bad opset range " + since + ".." + until);
            }
            this.sinceVersion = since;
            this.untilVersion = until;
            return this;
        }

        /**
         * Sets the first opset version served, with no upper bound. Mirrors ONNX Runtime's
         * {@code KernelDefBuilder_SetSinceVersion}.
         *
         * @param since the first version, at least 1
         * @return this builder
         */
        public Builder since(int since) {
            return versions(since, NO_UNTIL);
        }

        /**
         * Constrains the element types of inputs. Mirrors {@code KernelDefBuilder_AddTypeConstraint}.
         *
         * @param name the type parameter's name
         * @param types the allowed types
         * @param inputs the positions of the inputs it constrains
         * @return this builder
         */
        public Builder typeConstraint(String name, Collection<ElementType> types, int... inputs) {
            List<Integer> positions = new ArrayList<>();
            for (int i : inputs) {
                positions.add(i);
            }
            typeConstraints.add(new TypeConstraint(name, EnumSet.copyOf(types), positions));
            return this;
        }

        /**
         * Sets where the kernel wants an input. Mirrors {@code KernelDefBuilder_SetInputMemType}.
         *
         * @param index the input's position
         * @param type the placement
         * @return this builder
         */
        public Builder inputMemory(int index, KernelMemoryType type) {
            inputMemory.put(checkIndex(index), Objects.requireNonNull(type, "type"));
            return this;
        }

        /**
         * Sets where the kernel puts an output. Mirrors {@code KernelDefBuilder_SetOutputMemType}.
         *
         * @param index the output's position
         * @param type the placement
         * @return this builder
         */
        public Builder outputMemory(int index, KernelMemoryType type) {
            outputMemory.put(checkIndex(index), Objects.requireNonNull(type, "type"));
            return this;
        }

        /**
         * Declares an output to be a view of an input's buffer. Mirrors {@code KernelDefBuilder_AddInputOutputAliases}.
         *
         * @param input the input's position
         * @param output the output's position
         * @return this builder
         */
        public Builder alias(int input, int output) {
            aliases.put(checkIndex(output), checkIndex(input));
            return this;
        }

        /**
         * Lets an output be written into an input's buffer when nothing reads the input after the node (ONNX
         * Runtime's {@code MayInplace}, {@code KernelDefBuilder_AddInputOutputMutableAliases}); the kernel gets that
         * buffer from {@link KernelComputeContext#output} when the plan allows it.
         *
         * @param input the input's position
         * @param output the output's position
         * @return this builder
         */
        public Builder mayInplace(int input, int output) {
            inplace.put(checkIndex(output), checkIndex(input));
            return this;
        }

        /**
         * Builds the definition. Mirrors {@code KernelDefBuilder_Build}.
         *
         * @return the definition
         */
        public KernelDef build() {
            return new KernelDef(this);
        }

        private int checkIndex(int index) {
            if (index < 0) {
                throw new IllegalArgumentException("kernel " + opType + ": negative position " + index);
            }
            return index;
        }
    }
}
