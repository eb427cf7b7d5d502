package io.ortex.ep.cpu.ops;

import io.ortex.ep.cpu.OpRegistry;

/** Recurrent ops (LSTM, GRU, RNN), forward, reverse and bidirectional. */
public final class RecurrentOps {
    private RecurrentOps() {
    }

    /**
     * Registers this group's ops.
     *
     * @param r the registry
     */
    public static void register(OpRegistry r) {
        r.register("LSTM", node -> RecurrentKernel.create(node, RecurrentSpec.Kind.LSTM));
        r.register("GRU", node -> RecurrentKernel.create(node, RecurrentSpec.Kind.GRU));
        r.register("RNN", node -> RecurrentKernel.create(node, RecurrentSpec.Kind.RNN));
    }
}
