package io.ortex.ep.cpu.ops.rnn;

import io.ortex.ep.cpu.OpRegistry;

/** Registers the recurrent ops (LSTM, GRU, RNN), forward, reverse and bidirectional. */
public final class RnnOps {
    private RnnOps() {
    }

    /**
     * Registers this category's ops. Opsets 1 to 6 have the attribute {@code output_sequence}, opset 14 on the
     * attribute {@code layout}.
     *
     * @param r the registry
     */
    public static void register(OpRegistry r) {
        for (RecurrentSpec.Kind kind : RecurrentSpec.Kind.values()) {
            String op = kind.name();
            r.register("", op, 1, 6, node -> RecurrentKernels.create(node, kind, true, false));
            r.register("", op, 7, 13, node -> RecurrentKernels.create(node, kind, false, false));
            r.register("", op, 14, node -> RecurrentKernels.create(node, kind, false, true));
        }
    }
}
