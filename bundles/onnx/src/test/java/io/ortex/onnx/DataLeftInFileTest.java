package io.ortex.onnx;

import static io.ortex.onnx.TestModels.LARGE;
import static io.ortex.onnx.TestModels.floats;
import static io.ortex.onnx.TestModels.graphAttr;
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
import io.ortex.api.ResourceLimits;
import io.ortex.api.spi.ValueView;
import io.ortex.onnx.proto.Onnx.GraphProto;
import io.ortex.onnx.proto.Onnx.ModelProto;
import io.ortex.onnx.proto.Onnx.TensorProto;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link ModelReader#readLeavingDataInFile}: the larger initializers of the main graph are cut out of what protobuf
 * parses and read from the file when decoded; everything else is the model a whole read gives.
 */
class DataLeftInFileTest {
    @TempDir
    Path folder;

    /**
     * Y = ((X + A) + B) + S, A and B large with doc strings, S small; an If whose branches hold a large initializer
     * of their own, which stays in memory (only the main graph's data is left in the file).
     */
    private static ModelProto model3() {
        GraphProto branch = GraphProto.newBuilder().setName("branch")
                .addInitializer(floats("C", ramp(LARGE, 3f), LARGE))
                .addNode(node("id", "Identity", "C", "Z"))
                .addOutput(value("Z", LARGE)).build();
        GraphProto g = GraphProto.newBuilder().setName("g").setDocString("main")
                .addInput(value("X", LARGE))
                .addInitializer(floats("A", ramp(LARGE, 0.5f), LARGE).toBuilder().setDocString("first").build())
                .addInitializer(floats("S", new float[] {3}, 1))
                .addInitializer(floats("B", ramp(LARGE, -1f), LARGE).toBuilder().setDocString("second").build())
                .addInitializer(TensorProto.newBuilder().setName("K").setDataType(TensorProto.DataType.BOOL_VALUE)
                        .addDims(1).addInt32Data(1).build())
                .addNode(node("a", "Add", "X,A", "T"))
                .addNode(node("b", "Add", "T,B", "U"))
                .addNode(node("c", "Add", "U,S", "Y"))
                .addNode(node("if", "If", "K", "Z", graphAttr("then_branch", branch),
                        graphAttr("else_branch", branch)))
                .addOutput(value("Y", LARGE))
                .addOutput(value("Z", LARGE)).build();
        return model(g).toBuilder().setDocString("a model").build();
    }

    private static TensorProto initializer(OnnxModel m, String name) {
        return ((Value) m.graph().value(name).orElseThrow()).initializerProto();
    }

    private static float[] decoded(OnnxModel m, String name) {
        return m.graph().value(name).flatMap(ValueView::initializer).orElseThrow().floats();
    }

    @Test
    void givesTheModelAWholeReadGivesWithTheLargeDataLeftInTheFile() throws IOException {
        Path file = write(folder, "m.onnx", model3());
        OnnxModel whole = ModelReader.read(file);
        OnnxModel left = ModelReader.readLeavingDataInFile(file, ResourceLimits.DEFAULTS);

        for (String name : new String[] {"A", "B", "S"}) {
            assertArrayEquals(decoded(whole, name), decoded(left, name), name);
        }
        for (String name : new String[] {"A", "B"}) {
            TensorProto t = initializer(left, name);
            assertTrue(left.isLeftInModelFile(t), name);
            assertTrue(ExternalData.isExternal(t) && !t.hasRawData(), name);
            assertEquals(initializer(whole, name).getDocString(), t.getDocString(), name);
            assertEquals(file.toAbsolutePath(), left.graph().value(name).orElseThrow().externalData().orElseThrow()
                    .file());
        }
        assertFalse(left.isLeftInModelFile(initializer(left, "S")), "small data stays in memory");
        assertTrue(initializer(left, "S").hasRawData());
        assertEquals(whole.proto().getGraph().getNodeList(), left.proto().getGraph().getNodeList(),
                "the nodes (and the branch's large initializer) are parsed as they are");
        assertEquals(whole.proto().getDocString(), left.proto().getDocString());
        assertEquals(whole.proto().getGraph().getOutputList(), left.proto().getGraph().getOutputList());
        assertEquals(0, left.releaseInlineData(), "nothing is left to release");
    }

    @Test
    void theDataIsReadFromTheOpenFileAfterThePathIsDeletedAndByRewrittenModels() throws IOException {
        Path file = write(folder, "m.onnx", model3());
        float[] expected = decoded(ModelReader.read(file), "A");
        OnnxModel left = ModelReader.readLeavingDataInFile(file, ResourceLimits.DEFAULTS);
        OnnxModel rewritten = ModelReader.rewrite(left, left.proto());
        OnnxModel part = ModelReader.part(left, left.proto());

        Files.delete(file);

        assertArrayEquals(expected, decoded(left, "A"));
        assertArrayEquals(expected, decoded(rewritten, "A"));
        assertArrayEquals(expected, decoded(part, "A"));
    }

    @Test
    void aFileThatChangesSizeIsRefusedByNameAndNotMapped() throws IOException {
        Path file = write(folder, "m.onnx", model3());
        OnnxModel left = ModelReader.readLeavingDataInFile(file, ResourceLimits.DEFAULTS);
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
            ch.truncate(100);
        }

        InvalidModelException e = assertThrows(InvalidModelException.class, () -> decoded(left, "B"));
        assertTrue(e.getMessage().contains("m.onnx") && e.getMessage().contains("changed size")
                && e.getMessage().contains("'B'"), e.getMessage());
        assertTrue(left.graph().value("A").flatMap(ValueView::mappedData).isEmpty(), "nor mapped");
    }

    private static float[] mapped(OnnxModel m, String name) {
        ByteBuffer b = m.graph().value(name).flatMap(ValueView::mappedData).orElseThrow();
        assertTrue(b.isReadOnly(), name);
        assertEquals(ByteOrder.LITTLE_ENDIAN, b.order(), name);
        float[] f = new float[b.remaining() / Float.BYTES];
        b.asFloatBuffer().get(f);
        return f;
    }

    @Test
    void theDataLeftInTheFileIsMappedFromTheFileItWasReadFrom() throws IOException {
        Path file = write(folder, "m.onnx", model3());
        OnnxModel whole = ModelReader.read(file);
        OnnxModel left = ModelReader.readLeavingDataInFile(file, ResourceLimits.DEFAULTS);
        float[] expected = decoded(whole, "A");
        // the path now names another file of the same size: the mapping still reads the one the model came from
        long size = Files.size(file);
        Files.delete(file);
        Files.write(file, new byte[(int) size]);

        assertArrayEquals(expected, mapped(left, "A"));
        assertArrayEquals(decoded(whole, "B"), mapped(ModelReader.rewrite(left, left.proto()), "B"));
        assertTrue(left.graph().value("S").flatMap(ValueView::mappedData).isEmpty(), "data held in memory");
        assertTrue(whole.graph().value("A").flatMap(ValueView::mappedData).isEmpty(), "data read whole");
        assertTrue(left.graph().value("X").flatMap(ValueView::mappedData).isEmpty(), "a graph input");
    }

    @Test
    void externalDataIsMappedAndAShortFileIsNot() throws IOException {
        float[] w = ramp(LARGE, 2f);
        ByteBuffer bytes = ByteBuffer.allocate(8 + LARGE * Float.BYTES).order(ByteOrder.LITTLE_ENDIAN);
        bytes.position(8);
        bytes.asFloatBuffer().put(w);
        Files.write(folder.resolve("w.bin"), bytes.array());
        GraphProto g = GraphProto.newBuilder().setName("g")
                .addInput(value("X", LARGE))
                .addInitializer(TestModels.external("W", "w.bin", 8, LARGE * 4L, LARGE))
                .addNode(node("a", "Add", "X,W", "Y"))
                .addOutput(value("Y", LARGE)).build();
        Path file = write(folder, "m.onnx", model(g));

        assertArrayEquals(w, mapped(ModelReader.read(file), "W"));
        OnnxModel m = ModelReader.read(file);
        try (FileChannel ch = FileChannel.open(folder.resolve("w.bin"), StandardOpenOption.WRITE)) {
            ch.truncate(100);
        }
        assertTrue(m.graph().value("W").flatMap(ValueView::mappedData).isEmpty());
    }

    @Test
    void anInitializerWithTwoKindsOfDataIsReadWhole() throws IOException {
        TensorProto odd = floats("A", ramp(LARGE, 0.5f), LARGE).toBuilder().addFloatData(1f).build();
        ModelProto m = model3().toBuilder().setGraph(model3().getGraph().toBuilder().setInitializer(0, odd)).build();
        Path file = write(folder, "odd.onnx", m);

        OnnxModel left = ModelReader.readLeavingDataInFile(file, ResourceLimits.DEFAULTS);

        assertFalse(left.isLeftInModelFile(initializer(left, "A")));
        assertTrue(initializer(left, "A").hasRawData());
        assertTrue(left.isLeftInModelFile(initializer(left, "B")), "the plain one is still left in the file");
    }

    @Test
    void aTruncatedFileGetsTheErrorOfAWholeRead() throws IOException {
        byte[] bytes = model3().toByteArray();
        for (int cut : new int[] {bytes.length / 2, bytes.length - 3, 7}) {
            Path file = write(folder, "t" + cut + ".onnx", Arrays.copyOf(bytes, cut));
            String whole = assertThrows(InvalidModelException.class, () -> ModelReader.read(file)).getMessage();
            String left = assertThrows(InvalidModelException.class,
                    () -> ModelReader.readLeavingDataInFile(file, ResourceLimits.DEFAULTS)).getMessage();
            assertEquals(whole, left);
        }
    }

    /**
     * The fuzzer's corpus of odd models: a read leaving every {@code raw_data} of the main graph in the file ends as
     * a whole read does.
     */
    @Test
    void endsAsAWholeReadOnEveryFuzzedModel() throws Exception {
        Path corpus = Path.of(getClass().getResource("ModelReaderFuzzTestInputs/readModel").toURI());
        int read = 0;
        int cut = 0;
        try (var inputs = Files.list(corpus)) {
            for (Path input : inputs.sorted().toList()) {
                Path file = write(folder, "fuzzed.onnx", Files.readAllBytes(input));
                String whole = outcome(() -> ModelReader.read(file, ModelReaderFuzzTest.LIMITS));
                String left = outcome(() -> ModelReader.readLeavingDataInFile(file, ModelReaderFuzzTest.LIMITS, 1));
                assertEquals(whole, left, input.getFileName().toString());
                read++;
                cut += leftAny(file) ? 1 : 0;
            }
        }
        assertTrue(read > 100, "the corpus is there: " + read);
        assertTrue(cut > 0, "data was left in the file for " + cut + " models");
    }

    /** Seeded random damage to a valid model (bytes changed, cut off, repeated): both reads end alike. */
    @Test
    void endsAsAWholeReadOnDamagedModels() throws IOException {
        byte[] valid = model3().toByteArray();
        java.util.Random random = new java.util.Random(42);
        int cut = 0;
        for (int i = 0; i < 200; i++) {
            byte[] bytes = valid.clone();
            for (int k = 1 + random.nextInt(4); k > 0; k--) {
                // damage mostly the structure around the data: the first 300 bytes and the last 300
                int at = random.nextBoolean() ? random.nextInt(300) : bytes.length - 1 - random.nextInt(300);
                bytes[at] = (byte) random.nextInt(256);
            }
            if (random.nextInt(5) == 0) {
                bytes = Arrays.copyOf(bytes, random.nextInt(bytes.length));
            }
            Path file = write(folder, "damaged.onnx", bytes);
            String whole = outcome(() -> ModelReader.read(file, ModelReaderFuzzTest.LIMITS));
            String left = outcome(() -> ModelReader.readLeavingDataInFile(file, ModelReaderFuzzTest.LIMITS, 1));
            assertEquals(whole, left, "damage " + i);
            cut += leftAny(file) ? 1 : 0;
        }
        assertTrue(cut > 50, "data was left in the file for " + cut + " models");
    }

    private static boolean leftAny(Path file) {
        try {
            OnnxModel m = ModelReader.readLeavingDataInFile(file, ModelReaderFuzzTest.LIMITS, 1);
            return m.graph().initializers().stream().anyMatch(v -> m.isLeftInModelFile(
                    ((Value) v).initializerProto()));
        } catch (io.ortex.api.OrtexException e) {
            return false;
        }
    }

    /** What reading gives: each initializer's decoded data, or the error's message. */
    private static String outcome(java.util.function.Supplier<OnnxModel> reader) {
        try {
            OnnxModel m = reader.get();
            StringBuilder sb = new StringBuilder();
            for (ValueView v : m.graph().initializers()) {
                var t = v.initializer().orElseThrow();
                sb.append(v.name()).append('=').append(t).append(' ')
                        .append(Arrays.deepHashCode(new Object[] {t.data()})).append('\n');
            }
            return sb.toString();
        } catch (io.ortex.api.OrtexException e) {
            return e.getClass().getSimpleName() + ": " + e.getMessage();
        }
    }

    @Test
    void aMissingFileGetsTheErrorOfAWholeRead() {
        Path file = folder.resolve("none.onnx");
        String whole = assertThrows(InvalidModelException.class, () -> ModelReader.read(file)).getMessage();
        String left = assertThrows(InvalidModelException.class,
                () -> ModelReader.readLeavingDataInFile(file, ResourceLimits.DEFAULTS)).getMessage();
        assertEquals(whole, left);
    }
}
