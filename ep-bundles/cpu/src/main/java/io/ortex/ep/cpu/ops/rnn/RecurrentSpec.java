package io.ortex.ep.cpu.ops.rnn;

import io.ortex.api.InvalidModelException;
import io.ortex.api.NotImplementedException;
import io.ortex.api.spi.NodeView;

/**
 * The attributes of an LSTM, GRU or RNN node, with ONNX's defaults: direction, hidden size, the activation
 * functions per direction with their alpha and beta (consumed in order by the functions that take them), clip,
 * {@code input_forget} (LSTM), {@code linear_before_reset} (GRU) and {@code layout} (opset 14). Immutable.
 *
 * @param kind which op
 * @param directions 1, or 2 for bidirectional
 * @param reverseFirst whether direction 0 runs backwards ({@code direction=reverse})
 * @param hidden the hidden size
 * @param fns the activation codes, {@code functionsPerDirection} per direction
 * @param alphas each function's alpha
 * @param betas each function's beta
 * @param clip the cell clip threshold, or infinity when not set
 * @param inputForget whether LSTM couples the input and forget gates
 * @param linearBeforeReset whether GRU applies the hidden gate's linear transform before the reset gate
 * @param batchFirst whether {@code layout=1}: batch before sequence in X and Y, batch first in Y_h and Y_c
 */
record RecurrentSpec(Kind kind, int directions, boolean reverseFirst, int hidden, int[] fns, float[] alphas,
                     float[] betas, float clip, boolean inputForget, boolean linearBeforeReset, boolean batchFirst) {

    /** The three recurrent ops, with their gate count and default activations. */
    enum Kind {
        /** Long short-term memory: gates i, o, f, c. */
        LSTM(4, "Sigmoid", "Tanh", "Tanh"),
        /** Gated recurrent unit: gates z, r, h. */
        GRU(3, "Sigmoid", "Tanh"),
        /** The plain recurrent cell. */
        RNN(1, "Tanh");

        final int gates;
        final String[] defaults;

        Kind(int gates, String... defaults) {
            this.gates = gates;
            this.defaults = defaults;
        }
    }

    /**
     * Reads a node's attributes.
     *
     * @param node the node
     * @param kind which op it is
     * @param hasOutputSequence whether the node's opset has the attribute {@code output_sequence} (1 to 6)
     * @param hasLayout whether the node's opset has the attribute {@code layout} (14 on)
     * @return the spec
     */
    static RecurrentSpec of(NodeView node, Kind kind, boolean hasOutputSequence, boolean hasLayout) {
        String op = kind.name();
        String direction = node.stringAttr("direction", "forward");
        int dirs;
        boolean reverse = false;
        switch (direction) {
            case "forward": dirs = 1; break;
            case "reverse": dirs = 1; reverse = true; break;
            case "bidirectional": dirs = 2; break;
            default:
                throw new InvalidModelException(op + " attribute 'direction' is '" + direction
                        + "', not forward, reverse or bidirectional");
        }
        long hidden = node.intAttr("hidden_size", -1);
        int per = kind.defaults.length;
        String[] names = node.attribute("activations").map(a -> a.asStrings().toArray(new String[0])).orElse(null);
        if (names == null) {
            names = new String[per * dirs];
            for (int i = 0; i < names.length; i++) {
                names[i] = kind.defaults[i % per];
            }
        } else if (names.length == per && dirs == 2) {
            String[] both = new String[2 * per];
            System.arraycopy(names, 0, both, 0, per);
            System.arraycopy(names, 0, both, per, per);
            names = both;
        } else if (names.length != per * dirs) {
            throw new InvalidModelException(op + " attribute 'activations' has " + names.length + " functions, expected "
                    + per * dirs + " (" + per + " per direction)");
        }
        float[] alphaList = node.floatsAttr("activation_alpha", new float[0]);
        float[] betaList = node.floatsAttr("activation_beta", new float[0]);
        int[] fns = new int[names.length];
        float[] alphas = new float[names.length];
        float[] betas = new float[names.length];
        int nextAlpha = 0;
        int nextBeta = 0;
        for (int i = 0; i < names.length; i++) {
            fns[i] = RnnActivations.code(names[i], op);
            float a = RnnActivations.defaultAlpha(fns[i]);
            if (!Float.isNaN(a) && nextAlpha < alphaList.length) {
                a = alphaList[nextAlpha++];
            }
            float b = RnnActivations.defaultBeta(fns[i]);
            if (!Float.isNaN(b) && nextBeta < betaList.length) {
                b = betaList[nextBeta++];
            }
            alphas[i] = a;
            betas[i] = b;
        }
        float clip = node.floatAttr("clip", Float.POSITIVE_INFINITY);
        if (!(clip > 0)) {
            throw new InvalidModelException(op + " attribute 'clip' must be positive, got " + clip);
        }
        boolean inputForget = kind == Kind.LSTM && node.intAttr("input_forget", 0) != 0;
        boolean lbr = kind == Kind.GRU && node.intAttr("linear_before_reset", 0) != 0;
        long layout = hasLayout ? node.intAttr("layout", 0) : 0;
        if (layout != 0 && layout != 1) {
            throw new NotImplementedException(op + " attribute 'layout' value " + layout + " is not 0 or 1");
        }
        if (hasOutputSequence && node.intAttr("output_sequence", 0) != 0) {
            throw new NotImplementedException(op + " attribute 'output_sequence' (opset 1) is not supported");
        }
        return new RecurrentSpec(kind, dirs, reverse, (int) hidden, fns, alphas, betas, clip, inputForget, lbr,
                layout == 1);
    }

    /** The number of activation functions per direction. */
    int functionsPerDirection() {
        return kind.defaults.length;
    }

    /** Whether direction {@code d} runs from the end of the sequence. */
    boolean reverse(int d) {
        return d == 1 || reverseFirst;
    }
}
