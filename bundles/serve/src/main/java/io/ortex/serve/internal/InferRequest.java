package io.ortex.serve.internal;

import io.ortex.api.Tensor;
import java.util.List;

/**
 * A decoded inference request: its inputs as tensors, the outputs asked for, and whether outputs should come in the
 * binary extension by default.
 *
 * @param id the request id to echo, or null
 * @param inputs the inputs in request order, names unique
 * @param outputs the outputs asked for, in request order; empty for all of the model's outputs
 * @param binaryDataOutput the request parameter {@code binary_data_output}: outputs in binary unless an output
 *     says otherwise
 */
public record InferRequest(String id, List<Input> inputs, List<RequestedOutput> outputs, boolean binaryDataOutput) {
    /**
     * Copies the lists.
     *
     * @param id the request id to echo, or null
     * @param inputs the inputs in request order, names unique
     * @param outputs the outputs asked for, in request order; empty for all
     * @param binaryDataOutput whether outputs come in binary by default
     */
    public InferRequest {
        inputs = List.copyOf(inputs);
        outputs = List.copyOf(outputs);
    }

    /**
     * One input tensor.
     *
     * @param name the input's name
     * @param datatype its datatype as the request declared it
     * @param tensor the values, of the declared shape
     */
    public record Input(String name, Datatype datatype, Tensor tensor) {
    }

    /**
     * One output asked for.
     *
     * @param name the output's name
     * @param binaryData its parameter {@code binary_data}, or null when the request-level choice applies
     */
    public record RequestedOutput(String name, Boolean binaryData) {
    }
}
