package io.ortex.ep.cpu.ops.rnn;

import io.ortex.api.ElementType;
import io.ortex.api.InvalidArgumentException;
import io.ortex.api.NotImplementedException;
import io.ortex.api.Tensor;
import io.ortex.api.spi.NodeView;
import io.ortex.api.spi.ValueView;
import io.ortex.ep.cpu.CpuKernel;
import io.ortex.ep.cpu.ops.support.WorkingArrays;
import java.util.List;

/**
 * LSTM, GRU and RNN: inputs X, W, R, B, sequence_lens, initial_h, initial_c (LSTM), P (LSTM); outputs Y, Y_h,
 * Y_c (LSTM), each optional. Weights that are constant initializers are packed when the kernel is created; others
 * at every run. Float32, float16 and bfloat16 run on {@link RnnFloat}, float64 on {@link RnnDouble}.
 */
final class RecurrentKernels {
    private RecurrentKernels() {
    }

    /**
     * Creates the kernel for an LSTM, GRU or RNN node.
     *
     * @param node the node
     * @param kind which op it is
     * @param hasOutputSequence whether the node's opset has the attribute {@code output_sequence} (1 to 6)
     * @param hasLayout whether the node's opset has the attribute {@code layout} (14 on)
     * @return the kernel
     */
    static CpuKernel create(NodeView node, RecurrentSpec.Kind kind, boolean hasOutputSequence, boolean hasLayout) {
        RecurrentSpec spec = RecurrentSpec.of(node, kind, hasOutputSequence, hasLayout);
        String op = kind.name();
        List<ValueView> inputs = node.inputs();
        boolean lstm = kind == RecurrentSpec.Kind.LSTM;
        Object constant = null;
        if (constant(inputs, 1) && constant(inputs, 2) && (absent(inputs, 3) || constant(inputs, 3))
                && (!lstm || absent(inputs, 7) || constant(inputs, 7))) {
            Tensor w = inputs.get(1).initializer().orElseThrow();
            Tensor r = inputs.get(2).initializer().orElseThrow();
            Tensor b = absent(inputs, 3) ? null : inputs.get(3).initializer().orElseThrow();
            Tensor p = lstm && !absent(inputs, 7) ? inputs.get(7).initializer().orElseThrow() : null;
            constant = pack(spec, w, r, b, p);
        }
        Object packed = constant;
        return (in, ctx) -> {
            Tensor x = in[0];
            Tensor w = in[1];
            if (x == null || w == null || in[2] == null) {
                throw new InvalidArgumentException(op + " needs the inputs X, W and R");
            }
            if (x.type() != w.type() || x.type() != in[2].type()) {
                throw new InvalidArgumentException(op + " inputs X, W and R have types " + x.type() + ", " + w.type()
                        + " and " + in[2].type() + ", not one type");
            }
            Tensor p = lstm && in.length > 7 ? in[7] : null;
            Object weights = packed != null ? packed : pack(spec, w, in[2], at(in, 3), p);
            int hidden = weights instanceof RnnFloat.Weights f ? f.hidden : ((RnnDouble.Weights) weights).hidden;
            int input = weights instanceof RnnFloat.Weights f ? f.input : ((RnnDouble.Weights) weights).input;
            RecurrentShapes geo = RecurrentShapes.of(op, x, spec.directions(), hidden, input, spec.batchFirst());
            int[] lens = lengths(op, at(in, 4), geo);
            Tensor h0 = at(in, 5);
            Tensor c0 = lstm ? at(in, 6) : null;
            geo.checkState(op, "initial_h", h0);
            geo.checkState(op, "initial_c", c0);
            Tensor[] all = weights instanceof RnnFloat.Weights f
                    ? RnnFloat.run(spec, f, geo, x, lens, h0, c0, x.type(), ctx)
                    : RnnDouble.run(spec, (RnnDouble.Weights) weights, geo, x, lens, h0, c0, x.type(), ctx);
            Tensor[] out = new Tensor[node.outputs().size()];
            System.arraycopy(all, 0, out, 0, Math.min(out.length, all.length));
            return out;
        };
    }

    private static Object pack(RecurrentSpec spec, Tensor w, Tensor r, Tensor b, Tensor p) {
        String op = spec.kind().name();
        int hidden = RecurrentShapes.checkWeights(op, spec.kind().gates, spec.directions(), spec.hidden(), w, r, b,
                p);
        ElementType type = w.type();
        if (WorkingArrays.viaFloat(type)) {
            return RnnFloat.pack(spec, hidden, w, r, b, p);
        }
        if (type == ElementType.DOUBLE) {
            return RnnDouble.pack(spec, hidden, w, r, b, p);
        }
        throw new NotImplementedException(op + " does not support element type " + type);
    }

    private static int[] lengths(String op, Tensor t, RecurrentShapes geo) {
        if (t == null) {
            return null;
        }
        if (t.size() != geo.batch()) {
            throw new InvalidArgumentException(op + " input 'sequence_lens' has " + t.size() + " entries for a batch of "
                    + geo.batch());
        }
        int[] lens = new int[t.size()];
        for (int i = 0; i < lens.length; i++) {
            long v = t.getLong(i);
            if (v < 0 || v > geo.seq()) {
                throw new InvalidArgumentException(op + " input 'sequence_lens' entry " + i + " is " + v
                        + ", outside [0, " + geo.seq() + "]");
            }
            lens[i] = (int) v;
        }
        return lens;
    }

    private static Tensor at(Tensor[] in, int i) {
        return i < in.length ? in[i] : null;
    }

    private static boolean absent(List<ValueView> inputs, int i) {
        return i >= inputs.size() || inputs.get(i) == null;
    }

    private static boolean constant(List<ValueView> inputs, int i) {
        return !absent(inputs, i) && inputs.get(i).isConstantInitializer();
    }
}
