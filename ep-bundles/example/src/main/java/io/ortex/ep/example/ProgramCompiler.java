package io.ortex.ep.example;

import io.ortex.api.ElementType;
import io.ortex.api.InvalidModelException;
import io.ortex.api.Names;
import io.ortex.api.OrtexException;
import io.ortex.api.Tensor;
import io.ortex.api.spi.FusedNode;
import io.ortex.api.spi.GraphView;
import io.ortex.api.spi.NodeView;
import io.ortex.api.spi.ValueView;
import io.ortex.ep.example.program.GemmAttributes;
import io.ortex.ep.example.program.Instruction;
import io.ortex.ep.example.program.MatMulAttributes;
import io.ortex.ep.example.program.OpAttributes;
import io.ortex.ep.example.program.OpCode;
import io.ortex.ep.example.program.PackedWeight;
import io.ortex.ep.example.program.Program;
import io.ortex.ep.example.program.WeightPacking;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;

/**
 * Compiles the graph of one fused group into a {@link Program}: what {@link ExampleExecutionProvider#compile} does
 * for each group.
 * <ol>
 *   <li>Each node becomes an instruction, in the graph's topological order, with its attributes read by
 *       {@link NodeAttributes}.</li>
 *   <li>Each operand is resolved: a value produced by an earlier node of the group is that node's result; a value
 *       named among the fused node's inputs is a kernel input; any other value must be an initializer (the runtime
 *       drops constant initializers from the fused node's inputs because the EP asked for
 *       {@code dropConstantInitializers}), which is read here, once, and packed with {@link WeightPacking}: MatMul
 *       and Gemm B as {@code [N, K]}, Conv W as {@code [M, C/group*kh*kw]}.</li>
 *   <li>When Relu fusion is on, a Relu whose operand is produced by an earlier instruction that nobody else reads
 *       is folded into that instruction as an in-place epilogue.</li>
 *   <li>The fused node's outputs, in its order, become the program's outputs.</li>
 * </ol>
 * Not thread safe; the EP creates one per {@code compile} call.
 */
final class ProgramCompiler {
    /** How many weights all compilers of this class loader packed: the work loading a payload skips. */
    private static final AtomicLong PACKED_WEIGHTS = new AtomicLong();

    private final boolean fuseRelu;

    /**
     * Gets how many weights were packed so far, over all compilers; for tests and diagnostics.
     *
     * @return the count
     */
    static long packedWeights() {
        return PACKED_WEIGHTS.get();
    }

    /**
     * Creates a compiler.
     *
     * @param fuseRelu whether to fold Relu nodes into the instruction that produces their operand
     */
    ProgramCompiler(boolean fuseRelu) {
        this.fuseRelu = fuseRelu;
    }

    /** Where an operand comes from before slots are numbered. */
    private record Operand(Kind kind, int index) {
        static final Operand NONE = new Operand(Kind.NONE, -1);
    }

    private enum Kind { NONE, INPUT, WEIGHT, TEMP }

    /** An instruction before slots are numbered. */
    private record Draft(OpCode op, OpAttributes attributes, Operand[] operands, boolean relu) {
    }

    /**
     * Compiles a group.
     *
     * @param graph the group's graph, valid during the call
     * @param fused the fused node standing for it, whose input and output order the program follows
     * @return the program
     * @throws InvalidModelException when a node or value of the group cannot be compiled; the message names it
     */
    Program compile(GraphView graph, FusedNode fused) {
        Map<String, Integer> inputIndex = new HashMap<>();
        for (int i = 0; i < fused.inputNames().size(); i++) {
            inputIndex.putIfAbsent(fused.inputNames().get(i), i);
        }
        Map<String, Integer> produced = new HashMap<>();
        Map<String, Integer> weightIndex = new LinkedHashMap<>();
        List<PackedWeight> weights = new ArrayList<>();
        List<Draft> drafts = new ArrayList<>();
        for (NodeView node : graph.nodes()) {
            try {
                drafts.add(draft(node, inputIndex, produced, weightIndex, weights));
            } catch (OrtexException e) {
                throw new InvalidModelException("node " + Names.quote(node.displayName()) + " (" + node.opType()
                        + ") of "
                        + fused.name() + ": " + e.getMessage());
            }
            produced.put(node.outputs().get(0).name(), drafts.size() - 1);
        }
        int[] outputs = new int[fused.outputNames().size()];
        for (int i = 0; i < outputs.length; i++) {
            Integer t = produced.get(fused.outputNames().get(i));
            if (t == null) {
                throw new InvalidModelException("output " + Names.quote(fused.outputNames().get(i)) + " of "
                        + fused.name()
                        + " is not produced by the group's nodes");
            }
            outputs[i] = t;
        }
        if (fuseRelu) {
            foldRelus(drafts, outputs);
        }
        return assemble(fused, weights, drafts, outputs);
    }

    private Draft draft(NodeView node, Map<String, Integer> inputIndex, Map<String, Integer> produced,
                        Map<String, Integer> weightIndex, List<PackedWeight> weights) {
        OpCode op = OpCode.forNode(node.domain(), node.opType());
        if (op == null) {
            throw new InvalidModelException("the example EP does not implement this op");
        }
        OpAttributes attributes = NodeAttributes.read(op, node);
        List<ValueView> in = node.inputs();
        Operand[] operands = new Operand[in.size()];
        for (int i = 0; i < operands.length; i++) {
            ValueView v = in.get(i);
            if (v == null) {
                operands[i] = Operand.NONE;
            } else if (produced.containsKey(v.name())) {
                operands[i] = new Operand(Kind.TEMP, produced.get(v.name()));
            } else if (inputIndex.containsKey(v.name())) {
                operands[i] = new Operand(Kind.INPUT, inputIndex.get(v.name()));
            } else {
                Function<Tensor, PackedWeight> packing = packing(op, i, attributes, v.name());
                String key = v.name() + "@" + op + "/" + i
                        + (attributes instanceof GemmAttributes g && g.transB() ? "/transB" : "");
                Integer index = weightIndex.get(key);
                if (index == null) {
                    index = weights.size();
                    weights.add(packing.apply(constant(v)));
                    PACKED_WEIGHTS.incrementAndGet();
                    weightIndex.put(key, index);
                }
                operands[i] = new Operand(Kind.WEIGHT, index);
                attributes = packedAttributes(i, attributes, weights.get(index).value().rank());
            }
        }
        return new Draft(op, attributes, operands, false);
    }

    /** How a constant operand is packed, by op and operand position. */
    private static Function<Tensor, PackedWeight> packing(OpCode op, int operand, OpAttributes attributes,
                                                          String name) {
        if (op == OpCode.MATMUL && operand == 1) {
            return t -> t.rank() >= 2 ? WeightPacking.matMulRight(name, t) : WeightPacking.asIs(name, t);
        }
        if (op == OpCode.GEMM && operand == 1) {
            return t -> WeightPacking.gemmRight(name, t, ((GemmAttributes) attributes).transB());
        }
        if ((op == OpCode.CONV || op == OpCode.CONV_NHWC) && operand == 1) {
            return t -> WeightPacking.convFilters(name, t);
        }
        return t -> WeightPacking.asIs(name, t);
    }

    /**
     * The attributes that describe a packed operand: B of Gemm, and B of MatMul when it has rank 2 or more, is now
     * stored as {@code [..., N, K]}.
     */
    private static OpAttributes packedAttributes(int operand, OpAttributes attributes, int packedRank) {
        if (operand != 1 || packedRank < 2) {
            return attributes;
        }
        if (attributes instanceof GemmAttributes g) {
            return new GemmAttributes(g.transA(), true, g.alpha(), g.beta());
        }
        if (attributes instanceof MatMulAttributes) {
            return new MatMulAttributes(true);
        }
        return attributes;
    }

    /** Reads an initializer operand, which must be float32. */
    private static Tensor constant(ValueView v) {
        if (!v.isInitializer()) {
            throw new InvalidModelException("value " + Names.quote(v.name())
                    + " is neither a fused-node input, nor produced in"
                    + " the group, nor an initializer");
        }
        Tensor t = v.initializer().orElseThrow();
        if (t.type() != ElementType.FLOAT) {
            throw new InvalidModelException("initializer " + Names.quote(v.name()) + " is " + t.type()
                    + ", not float32");
        }
        return t;
    }

    /**
     * Folds each Relu into the instruction producing its operand when only that Relu reads the result and the
     * result is not an output; the Relu's readers and outputs then read the producer.
     */
    private static void foldRelus(List<Draft> drafts, int[] outputs) {
        for (int i = 0; i < drafts.size(); i++) {
            Draft relu = drafts.get(i);
            if (relu == null || relu.op() != OpCode.RELU || relu.operands()[0].kind() != Kind.TEMP) {
                continue;
            }
            int source = relu.operands()[0].index();
            Draft producer = drafts.get(source);
            if (producer.relu() || readers(drafts, source) != 1 || contains(outputs, source)) {
                continue;
            }
            drafts.set(source, new Draft(producer.op(), producer.attributes(), producer.operands(), true));
            drafts.set(i, null);
            redirect(drafts, outputs, i, source);
        }
        renumber(drafts, outputs);
    }

    private static int readers(List<Draft> drafts, int temp) {
        int count = 0;
        for (Draft d : drafts) {
            if (d != null) {
                for (Operand o : d.operands()) {
                    if (o.kind() == Kind.TEMP && o.index() == temp) {
                        count++;
                    }
                }
            }
        }
        return count;
    }

    private static boolean contains(int[] values, int value) {
        for (int v : values) {
            if (v == value) {
                return true;
            }
        }
        return false;
    }

    /** Makes every reader of temporary {@code from} read {@code to} instead. */
    private static void redirect(List<Draft> drafts, int[] outputs, int from, int to) {
        for (Draft d : drafts) {
            if (d != null) {
                Operand[] ops = d.operands();
                for (int k = 0; k < ops.length; k++) {
                    if (ops[k].kind() == Kind.TEMP && ops[k].index() == from) {
                        ops[k] = new Operand(Kind.TEMP, to);
                    }
                }
            }
        }
        for (int k = 0; k < outputs.length; k++) {
            if (outputs[k] == from) {
                outputs[k] = to;
            }
        }
    }

    /** Removes the folded (null) drafts and renumbers temporaries to their new positions. */
    private static void renumber(List<Draft> drafts, int[] outputs) {
        int[] newIndex = new int[drafts.size()];
        int next = 0;
        for (int i = 0; i < drafts.size(); i++) {
            newIndex[i] = drafts.get(i) == null ? -1 : next++;
        }
        for (Draft d : drafts) {
            if (d != null) {
                Operand[] ops = d.operands();
                for (int k = 0; k < ops.length; k++) {
                    if (ops[k].kind() == Kind.TEMP) {
                        ops[k] = new Operand(Kind.TEMP, newIndex[ops[k].index()]);
                    }
                }
            }
        }
        for (int k = 0; k < outputs.length; k++) {
            outputs[k] = newIndex[outputs[k]];
        }
        drafts.removeIf(d -> d == null);
    }

    /** Numbers the slots (inputs, then weights, then temporaries) and builds the program. */
    private static Program assemble(FusedNode fused, List<PackedWeight> weights, List<Draft> drafts, int[] outputs) {
        int inputs = fused.inputNames().size();
        int firstTemp = inputs + weights.size();
        List<Instruction> instructions = new ArrayList<>();
        for (Draft d : drafts) {
            int[] slots = new int[d.operands().length];
            for (int k = 0; k < slots.length; k++) {
                Operand o = d.operands()[k];
                slots[k] = switch (o.kind()) {
                    case NONE -> -1;
                    case INPUT -> o.index();
                    case WEIGHT -> inputs + o.index();
                    case TEMP -> firstTemp + o.index();
                };
            }
            instructions.add(new Instruction(d.op(), d.attributes(), slots, d.relu()));
        }
        int[] outputSlots = new int[outputs.length];
        for (int k = 0; k < outputs.length; k++) {
            outputSlots[k] = firstTemp + outputs[k];
        }
        return new Program(fused.inputNames(), weights, instructions, fused.outputNames(), outputSlots);
    }
}
