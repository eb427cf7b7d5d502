package io.ortex.benchmarks.serving;

import io.ortex.api.Tensor;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;

/** all-MiniLM-L6-v2's three inputs for one row of tokens: the ids, a mask of ones and token types of zeros. */
final class Inputs {
    /** The inputs' names, in the model's order. */
    static final String[] NAMES = {"input_ids", "attention_mask", "token_type_ids"};

    private Inputs() {
    }

    /**
     * Gets the three inputs' values of one row.
     *
     * @param tokens the rows
     * @param row the row
     * @return the values, in the order of {@link #NAMES}
     */
    static long[][] values(TokenRows tokens, int row) {
        long[] mask = new long[tokens.length()];
        Arrays.fill(mask, 1);
        return new long[][] {tokens.inputIds(row), mask, new long[tokens.length()]};
    }

    /**
     * Gets the three inputs of one row as tensors of shape {@code [1, length]}.
     *
     * @param tokens the rows
     * @param row the row
     * @return the tensors by name
     */
    static Map<String, Tensor> tensors(TokenRows tokens, int row) {
        long[][] values = values(tokens, row);
        Map<String, Tensor> inputs = new LinkedHashMap<>();
        for (int i = 0; i < NAMES.length; i++) {
            inputs.put(NAMES[i], Tensor.ofLongs(values[i], 1, tokens.length()));
        }
        return inputs;
    }
}
