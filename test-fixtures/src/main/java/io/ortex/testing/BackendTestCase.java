package io.ortex.testing;

import io.ortex.api.Tensor;
import io.ortex.onnx.TensorCodec;
import io.ortex.onnx.proto.Onnx.ModelProto;
import io.ortex.onnx.proto.Onnx.ValueInfoProto;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * Writes an ONNX backend test case, the layout {@code ortex test} reads: {@code model.onnx} and
 * {@code test_data_set_0/input_K.pb}, {@code output_K.pb} ({@code TensorProto}s in graph order).
 */
public final class BackendTestCase {
    private BackendTestCase() {
    }

    /**
     * Writes a case.
     *
     * @param folder the case's folder, created
     * @param model the model
     * @param inputs its inputs, in graph order
     * @param outputs the expected outputs, in graph order
     * @return the folder
     * @throws IOException when a file cannot be written
     */
    public static Path write(Path folder, ModelProto model, List<Tensor> inputs, List<Tensor> outputs)
            throws IOException {
        Path set = Files.createDirectories(folder.resolve("test_data_set_0"));
        Files.write(folder.resolve("model.onnx"), model.toByteArray());
        List<ValueInfoProto> in = model.getGraph().getInputList();
        List<ValueInfoProto> out = model.getGraph().getOutputList();
        for (int i = 0; i < inputs.size(); i++) {
            Files.write(set.resolve("input_" + i + ".pb"), TensorCodec.toProto(inputs.get(i),
                    in.get(i).getName()).toByteArray());
        }
        for (int i = 0; i < outputs.size(); i++) {
            Files.write(set.resolve("output_" + i + ".pb"), TensorCodec.toProto(outputs.get(i),
                    out.get(i).getName()).toByteArray());
        }
        return folder;
    }
}
