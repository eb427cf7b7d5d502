package io.ortex.onnx;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import io.ortex.api.OrtexException;
import io.ortex.api.spi.ExternalDataInfo;
import io.ortex.onnx.proto.Onnx.GraphProto;
import io.ortex.onnx.proto.Onnx.ModelProto;
import io.ortex.onnx.proto.Onnx.OperatorSetIdProto;
import io.ortex.onnx.proto.Onnx.StringStringEntryProto;
import io.ortex.onnx.proto.Onnx.TensorProto;
import io.ortex.onnx.proto.Onnx.TypeProto;
import io.ortex.onnx.proto.Onnx.ValueInfoProto;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Fuzzes the resolution of external data: an initializer whose {@code external_data} entries (location, offset,
 * length, and others) and element type and dims come from the fuzzer, in a model read from a folder that holds a data
 * file, a subfolder and a symbolic link leading out of it. Reading and decoding must end in the tensor or Ortex's own
 * exception with a message, and a file that resolves must be inside the folder, links resolved.
 */
class ExternalDataFuzzTest {
    private static final Path FOLDER = folder();

    /** The model's folder: {@code weights.bin} (4 KiB), {@code sub/w.bin}, and {@code out -> /} leading outside. */
    private static Path folder() {
        try {
            Path dir = Files.createTempDirectory("ortex-fuzz-external");
            byte[] data = new byte[4096];
            for (int i = 0; i < data.length; i++) {
                data[i] = (byte) (i * 31);
            }
            Files.write(dir.resolve("weights.bin"), data);
            Files.createDirectories(dir.resolve("sub"));
            Files.write(dir.resolve("sub/w.bin"), new byte[64]);
            Files.createSymbolicLink(dir.resolve("out"), Path.of("/"));
            return dir.toRealPath();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @FuzzTest(maxDuration = "5m")
    void resolveExternalData(FuzzedDataProvider data) {
        TensorProto.Builder t = TensorProto.newBuilder().setName("w").setDataType(data.consumeInt(0, 25))
                .setDataLocation(TensorProto.DataLocation.EXTERNAL);
        int rank = data.consumeInt(0, 3);
        for (int i = 0; i < rank; i++) {
            t.addDims(data.consumeLong(-2, 5000));
        }
        int entries = data.consumeInt(0, 5);
        String[] keys = {"location", "offset", "length", "checksum", "basepath"};
        for (int i = 0; i < entries; i++) {
            t.addExternalData(StringStringEntryProto.newBuilder().setKey(data.pickValue(keys))
                    .setValue(data.consumeString(48)));
        }
        ModelProto model = ModelProto.newBuilder().setIrVersion(8)
                .addOpsetImport(OperatorSetIdProto.newBuilder().setVersion(17))
                .setGraph(GraphProto.newBuilder().setName("g").addInitializer(t)
                        .addOutput(ValueInfoProto.newBuilder().setName("w").setType(TypeProto.newBuilder()
                                .setTensorType(TypeProto.Tensor.newBuilder().setElemType(1)))))
                .build();
        try {
            OnnxModel m = ModelReader.read(model.toByteArray(), FOLDER, ModelReaderFuzzTest.LIMITS);
            ExternalDataInfo info = m.graph().initializers().get(0).externalData().orElseThrow();
            Path real = info.file().toRealPath();
            if (!real.startsWith(FOLDER)) {
                throw new AssertionError("external data escaped the model's folder: " + real);
            }
            m.graph().initializers().get(0).initializer();
        } catch (OrtexException e) {
            FuzzChecks.requireMessage(e);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
