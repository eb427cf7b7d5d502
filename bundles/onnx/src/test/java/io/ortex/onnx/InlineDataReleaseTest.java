package io.ortex.onnx;

import static io.ortex.onnx.TestModels.LARGE;
import static io.ortex.onnx.TestModels.floats;
import static io.ortex.onnx.TestModels.model;
import static io.ortex.onnx.TestModels.node;
import static io.ortex.onnx.TestModels.ramp;
import static io.ortex.onnx.TestModels.value;
import static io.ortex.onnx.TestModels.write;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ortex.api.InvalidModelException;
import io.ortex.api.Tensor;
import io.ortex.onnx.proto.Onnx.GraphProto;
import io.ortex.onnx.proto.Onnx.ModelProto;
import io.ortex.onnx.proto.Onnx.TensorProto;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link OnnxModel#releaseInlineData}: large inline initializers become ranges of the model file, read again on
 * demand with the same values; small ones, models from bytes and files that no longer hold the bytes keep theirs.
 */
class InlineDataReleaseTest {
    @TempDir
    Path folder;

    /** Y = X + W + S, W large and S small; a name and a doc string around the data, as real files have. */
    private static ModelProto twoWeights() {
        TensorProto w = floats("W", ramp(LARGE, 0.5f), LARGE).toBuilder().setDocString("the weight").build();
        GraphProto g = GraphProto.newBuilder().setName("g")
                .addInput(value("X", LARGE))
                .addInitializer(w)
                .addInitializer(floats("S", new float[] {3}, 1))
                .addNode(node("a", "Add", "X,W", "T"))
                .addNode(node("b", "Add", "T,S", "Y"))
                .addOutput(value("Y", LARGE)).build();
        return model(g);
    }

    private static Value weight(OnnxModel m) {
        return (Value) m.graph().value("W").orElseThrow();
    }

    private static TensorProto initializer(OnnxModel m, String name) {
        return m.graph().proto().getInitializerList().stream().filter(t -> t.getName().equals(name)).findFirst()
                .orElseThrow();
    }

    @Test
    void releasesTheLargeInitializerAndReadsTheSameValuesFromTheFile() throws IOException {
        Path file = write(folder, "m.onnx", twoWeights());
        OnnxModel m = ModelReader.read(file);
        Tensor before = weight(m).initializer().orElseThrow();

        long released = m.releaseInlineData();

        assertEquals(4L * LARGE, released);
        Value w = weight(m);
        assertTrue(ExternalData.isExternal(w.initializerProto()));
        assertTrue(ExternalData.isExternal(initializer(m, "W")), "the graph's message points into the file too");
        assertTrue(ExternalData.isExternal(m.proto().getGraph().getInitializer(0)), "and the model's");
        assertEquals("the weight", w.initializerProto().getDocString());
        assertArrayEquals(before.floats(), w.initializer().orElseThrow().floats());
        assertEquals(file.toAbsolutePath(), w.externalData().orElseThrow().file());
        Value small = (Value) m.graph().value("S").orElseThrow();
        assertFalse(ExternalData.isExternal(small.initializerProto()), "small data stays");
        assertEquals(0, m.releaseInlineData(), "nothing is left to release");
        assertArrayEquals(before.floats(), w.initializer().orElseThrow().floats());
    }

    @Test
    void aModelReadFromBytesKeepsItsData() {
        OnnxModel m = ModelReader.read(twoWeights().toByteArray(), folder);
        assertEquals(0, m.releaseInlineData());
        assertFalse(ExternalData.isExternal(weight(m).initializerProto()));
    }

    @Test
    void aFileThatNoLongerHoldsTheBytesKeepsThemInMemory() throws IOException {
        Path file = write(folder, "m.onnx", twoWeights());
        OnnxModel m = ModelReader.read(file);
        ModelProto other = twoWeights().toBuilder().setGraph(twoWeights().getGraph().toBuilder()
                .setInitializer(0, floats("W", ramp(LARGE, 2f), LARGE))).build();
        write(folder, "m.onnx", other);

        assertEquals(0, m.releaseInlineData());
        assertEquals(0.5f, weight(m).initializer().orElseThrow().floats()[1]);
    }

    @Test
    void theDataIsStillReadAfterThePathIsDeletedOrReplaced() throws IOException {
        Path file = write(folder, "m.onnx", twoWeights());
        OnnxModel m = ModelReader.read(file);
        float[] expected = weight(m).initializer().orElseThrow().floats();
        m.releaseInlineData();

        Files.delete(file);
        assertArrayEquals(expected, weight(m).initializer().orElseThrow().floats());
        write(folder, "m.onnx", new byte[] {1, 2, 3});
        assertArrayEquals(expected, weight(m).initializer().orElseThrow().floats());
    }

    @Test
    void aFileThatChangesSizeAfterTheReleaseIsRefusedByName() throws IOException {
        Path file = write(folder, "m.onnx", twoWeights());
        OnnxModel m = ModelReader.read(file);
        m.releaseInlineData();
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
            ch.truncate(100);
        }

        InvalidModelException e = assertThrows(InvalidModelException.class, () -> weight(m).initializer());
        assertTrue(e.getMessage().contains("m.onnx") && e.getMessage().contains("changed size")
                && e.getMessage().contains("'W'"), e.getMessage());
    }

    @Test
    void locatesEveryInitializersData() throws IOException {
        Path file = write(folder, "m.onnx", twoWeights());
        Map<String, InlineData.Range> ranges;
        try (FileChannel ch = FileChannel.open(file)) {
            ranges = InlineData.locate(ch);
        }
        byte[] bytes = Files.readAllBytes(file);
        for (TensorProto t : twoWeights().getGraph().getInitializerList()) {
            InlineData.Range r = ranges.get(t.getName());
            assertEquals(t.getRawData().size(), r.length(), t.getName());
            byte[] found = java.util.Arrays.copyOfRange(bytes, (int) r.offset(), (int) r.offset() + r.length());
            assertArrayEquals(t.getRawData().toByteArray(), found, t.getName());
        }
    }
}
