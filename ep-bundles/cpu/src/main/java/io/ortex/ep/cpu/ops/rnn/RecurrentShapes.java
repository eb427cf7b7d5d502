package io.ortex.ep.cpu.ops.rnn;

import io.ortex.api.InvalidArgumentException;
import io.ortex.api.Tensor;

/**
 * The shapes of one recurrent run and where each (time, direction, batch) vector lives in X, Y and the state
 * tensors, for both layouts: {@code layout=0} is X {@code [seq, batch, input]}, Y {@code [seq, dirs, batch,
 * hidden]}, Y_h/Y_c/initial states {@code [dirs, batch, hidden]}; {@code layout=1} is X {@code [batch, seq,
 * input]}, Y {@code [batch, seq, dirs, hidden]}, states {@code [batch, dirs, hidden]}. Immutable.
 *
 * @param seq the sequence length
 * @param batch the batch size
 * @param input the input size
 * @param dirs the number of directions
 * @param hidden the hidden size
 * @param batchFirst whether layout is 1
 */
record RecurrentShapes(int seq, int batch, int input, int dirs, int hidden, boolean batchFirst) {

    /**
     * Reads the run's shapes from X and checks them against the weights.
     *
     * @param op the op type for messages
     * @param x the input X
     * @param dirs the number of directions
     * @param hidden the hidden size
     * @param input the input size the weights expect
     * @param batchFirst whether layout is 1
     * @return the shapes
     */
    static RecurrentShapes of(String op, Tensor x, int dirs, int hidden, int input, boolean batchFirst) {
        if (x.rank() != 3 || x.dim(2) != input) {
            throw new InvalidArgumentException(op + " input 'X' has shape [" + Tensor.shapeString(x.shape())
                    + "], expected rank 3 with input size " + input);
        }
        int seq = (int) (batchFirst ? x.dim(1) : x.dim(0));
        int batch = (int) (batchFirst ? x.dim(0) : x.dim(1));
        return new RecurrentShapes(seq, batch, input, dirs, hidden, batchFirst);
    }

    /**
     * Checks W, R, B and P against each other and the direction count.
     *
     * @param op the op type for messages
     * @param gates the gate count
     * @param dirs the direction count
     * @param hidden the hidden size, or -1 to take it from R
     * @param w W
     * @param r R
     * @param b B, or null
     * @param p P, or null
     * @return the hidden size
     */
    static int checkWeights(String op, int gates, int dirs, int hidden, Tensor w, Tensor r, Tensor b, Tensor p) {
        if (r.rank() != 3) {
            throw new InvalidArgumentException(op + " input 'R' must have rank 3, got shape ["
                    + Tensor.shapeString(r.shape()) + "]");
        }
        int h = hidden >= 0 ? hidden : (int) r.dim(2);
        long gh = (long) gates * h;
        require(op, "W", w, dirs, gh, w.rank() == 3 ? w.dim(2) : -1);
        require(op, "R", r, dirs, gh, h);
        if (b != null) {
            require(op, "B", b, dirs, 2 * gh);
        }
        if (p != null) {
            require(op, "P", p, dirs, 3L * h);
        }
        return h;
    }

    /**
     * Checks an initial state's shape.
     *
     * @param op the op type for messages
     * @param name the input's name
     * @param t the tensor, or null
     */
    void checkState(String op, String name, Tensor t) {
        if (t != null && !java.util.Arrays.equals(t.shape(), stateShape())) {
            throw new InvalidArgumentException(op + " input '" + name + "' has shape [" + Tensor.shapeString(
                    t.shape()) + "], expected [" + Tensor.shapeString(stateShape()) + "]");
        }
    }

    private static void require(String op, String name, Tensor t, long... dims) {
        if (!java.util.Arrays.equals(t.shape(), dims)) {
            throw new InvalidArgumentException(op + " input '" + name + "' has shape [" + Tensor.shapeString(
                    t.shape()) + "], expected [" + Tensor.shapeString(dims) + "]");
        }
    }

    /** The shape of Y. */
    long[] yShape() {
        return batchFirst ? new long[] {batch, seq, dirs, hidden} : new long[] {seq, dirs, batch, hidden};
    }

    /** The shape of Y_h and Y_c (and of the initial states). */
    long[] stateShape() {
        return batchFirst ? new long[] {batch, dirs, hidden} : new long[] {dirs, batch, hidden};
    }

    /** Where X's vector for time {@code t} and batch entry {@code b} starts. */
    int xOffset(int t, int b) {
        return (batchFirst ? b * seq + t : t * batch + b) * input;
    }

    /** Where Y's vector for time {@code t}, direction {@code d} and batch entry {@code b} starts. */
    int yOffset(int t, int d, int b) {
        return (batchFirst ? (b * seq + t) * dirs + d : (t * dirs + d) * batch + b) * hidden;
    }

    /** Where a state tensor's vector for direction {@code d} and batch entry {@code b} starts. */
    int stateOffset(int d, int b) {
        return (batchFirst ? b * dirs + d : d * batch + b) * hidden;
    }
}
