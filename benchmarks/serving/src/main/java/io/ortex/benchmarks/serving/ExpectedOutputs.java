package io.ortex.benchmarks.serving;

import io.ortex.api.Environment;
import io.ortex.api.Session;
import io.ortex.api.SessionOptions;
import io.ortex.api.Tensor;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * What the server must answer: each row's {@code last_hidden_state} from a direct session run of the same model in
 * this process (the CPU EP), and the check of an answer against it. Immutable; {@link #check} is thread safe.
 */
final class ExpectedOutputs {
    /** The output every request asks for. */
    static final String OUTPUT = "last_hidden_state";
    /** The largest difference accepted: the example EP and batched runs may sum in another order. */
    static final float TOLERANCE = 1e-3f;

    private final List<float[]> rows;

    private ExpectedOutputs(List<float[]> rows) {
        this.rows = rows;
    }

    /**
     * Runs every row through a session of the model.
     *
     * @param model the model file
     * @param tokens the rows
     * @return the expected outputs
     */
    static ExpectedOutputs compute(Path model, TokenRows tokens) {
        List<float[]> rows = new ArrayList<>();
        try (Environment env = Environment.create();
             Session session = env.createSession(model, new SessionOptions())) {
            for (int r = 0; r < tokens.count(); r++) {
                Map<String, Tensor> inputs = Inputs.tensors(tokens, r);
                rows.add(session.run(inputs).get(OUTPUT).floats().clone());
            }
        }
        return new ExpectedOutputs(List.copyOf(rows));
    }

    /**
     * Counts the rows.
     *
     * @return the count
     */
    int rows() {
        return rows.size();
    }

    /**
     * Checks an answer.
     *
     * @param row the row asked
     * @param got the output received
     * @return null when it matches, else what differs
     */
    String check(int row, float[] got) {
        float[] want = rows.get(row);
        if (got.length != want.length) {
            return "output " + OUTPUT + " has " + got.length + " values, expected " + want.length;
        }
        for (int i = 0; i < want.length; i++) {
            if (!(Math.abs(got[i] - want[i]) <= TOLERANCE)) {
                return "output " + OUTPUT + "[" + i + "] is " + got[i] + ", the direct session run gives " + want[i];
            }
        }
        return null;
    }
}
