package io.ortex.benchmarks.serving;

/** One protocol's way of asking the server for one row's output. Implementations are thread safe. */
interface InferClient extends AutoCloseable {
    /**
     * Sends one inference request and waits for its answer.
     *
     * @param model the model's name
     * @param row the row of tokens
     * @return the {@code last_hidden_state} values received
     * @throws Exception any failure: a refused request, an error status, a broken answer, a timeout
     */
    float[] infer(String model, int row) throws Exception;

    /**
     * Gets the protocol's name for the report.
     *
     * @return {@code REST} or {@code gRPC}
     */
    String protocol();

    @Override
    void close();
}
