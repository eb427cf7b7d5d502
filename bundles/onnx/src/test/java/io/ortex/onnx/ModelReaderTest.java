package io.ortex.onnx;

import static io.ortex.onnx.TestModels.addGraph;
import static io.ortex.onnx.TestModels.external;
import static io.ortex.onnx.TestModels.floats;
import static io.ortex.onnx.TestModels.graphAttr;
import static io.ortex.onnx.TestModels.model;
import static io.ortex.onnx.TestModels.node;
import static io.ortex.onnx.TestModels.value;
import static io.ortex.onnx.TestModels.write;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import io.ortex.api.ErrorCode;
import io.ortex.api.InvalidModelException;
import io.ortex.api.NotImplementedException;
import io.ortex.api.OrtexException;
import io.ortex.onnx.proto.Onnx.GraphProto;
import io.ortex.onnx.proto.Onnx.ModelProto;
import io.ortex.onnx.proto.Onnx.OperatorSetIdProto;
import io.ortex.onnx.proto.Onnx.TensorProto;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.api.io.TempDir;

class ModelReaderTest {
    /** all-MiniLM-L6-v2 in its Maven Central jar, a test dependency. */
    private static final String REAL_MODEL = "all-minilm-l6-v2.onnx";

    @TempDir
    Path dir;

    /** Asserts the exception type and that the message is one line containing every culprit. */
    static <T extends OrtexException> T fails(Class<T> type, Executable call, String... culprits) {
        T e = assertThrows(type, call);
        String m = e.getMessage();
        assertFalse(m.contains("\n"), () -> "message is not one line: " + m);
        for (String c : culprits) {
            assertTrue(m.contains(c), () -> "message does not name '" + c + "': " + m);
        }
        return e;
    }

    private OrtexException failsFromFile(Class<? extends OrtexException> type, ModelProto m, String... culprits)
            throws IOException {
        Path file = write(dir, "bad.onnx", m);
        String[] all = Arrays.copyOf(culprits, culprits.length + 1);
        all[culprits.length] = file.toString();
        return fails(type, () -> ModelReader.read(file), all);
    }

    @Test
    void readsModelFileWithOpsetsAndMetadata() throws IOException {
        ModelProto proto = model(addGraph()).toBuilder()
                .addOpsetImport(OperatorSetIdProto.newBuilder().setDomain("com.microsoft").setVersion(1))
                .addMetadataProps(TestModels.entry("z", "last"))
                .addMetadataProps(TestModels.entry("author", "me")).build();
        Path file = write(dir, "m.onnx", proto);
        OnnxModel m = ModelReader.read(file);
        assertEquals(8, m.irVersion());
        assertEquals(Map.of("", 17, "com.microsoft", 1), m.opsetImports());
        assertEquals(java.util.List.of("author", "z"), java.util.List.copyOf(m.metadata().keySet()));
        assertEquals(file.toAbsolutePath(), m.path().orElseThrow());
        assertEquals(dir.toAbsolutePath(), m.externalFolder().orElseThrow());
        assertEquals("model " + file, m.describe());
        assertEquals(proto, m.proto());
        assertEquals(1, m.graph().nodes().size());
    }

    @Test
    void aiOnnxDomainIsTheDefaultDomain() {
        ModelProto proto = model(addGraph()).toBuilder().clearOpsetImport()
                .addOpsetImport(OperatorSetIdProto.newBuilder().setDomain("ai.onnx").setVersion(13)).build();
        OnnxModel m = ModelReader.read(proto.toByteArray(), null);
        assertEquals(Map.of("", 13), m.opsetImports());
        assertEquals(13, m.graph().nodes().get(0).opsetVersion());
    }

    @Test
    void readsModelFromBytes() {
        OnnxModel m = ModelReader.read(model(addGraph()).toByteArray(), null);
        assertTrue(m.path().isEmpty());
        assertTrue(m.externalFolder().isEmpty());
        assertEquals("model (from bytes)", m.describe());
        assertEquals(Map.of("", 17), m.opsetImports());
    }

    @Test
    void missingFileIsNamed() {
        Path file = dir.resolve("nope.onnx");
        InvalidModelException e = fails(InvalidModelException.class, () -> ModelReader.read(file), file.toString(),
                "does not exist");
        assertEquals(ErrorCode.NO_SUCH_FILE, e.code());
    }

    @Test
    void folderIsRefused() {
        fails(InvalidModelException.class, () -> ModelReader.read(dir), dir.toString(), "folder");
    }

    @Test
    void emptyFileIsNotAModel() throws IOException {
        Path file = write(dir, "empty.onnx", new byte[0]);
        InvalidModelException e = fails(InvalidModelException.class, () -> ModelReader.read(file), file.toString());
        assertEquals(ErrorCode.INVALID_PROTOBUF, e.code());
    }

    @Test
    void textFileIsNotAModel() throws IOException {
        Path file = write(dir, "notes.onnx", "hello, this is not a model\nsecond line\n"
                .getBytes(StandardCharsets.UTF_8));
        InvalidModelException e = fails(InvalidModelException.class, () -> ModelReader.read(file), file.toString());
        assertEquals(ErrorCode.INVALID_PROTOBUF, e.code());
    }

    @Test
    void randomBytesAreNotAModel() throws IOException {
        Random random = new Random(42);
        for (int i = 0; i < 20; i++) {
            byte[] bytes = new byte[1 + random.nextInt(4096)];
            random.nextBytes(bytes);
            Path file = write(dir, "random" + i + ".onnx", bytes);
            fails(InvalidModelException.class, () -> ModelReader.read(file), file.toString());
            fails(InvalidModelException.class, () -> ModelReader.read(bytes, dir), "model (from bytes)");
        }
    }

    @Test
    void truncatedTinyModelIsRefused() throws IOException {
        byte[] full = model(addGraph()).toByteArray();
        for (int cut : new int[] {1, full.length / 2, full.length - 1}) {
            Path file = write(dir, "cut" + cut + ".onnx", Arrays.copyOf(full, cut));
            fails(InvalidModelException.class, () -> ModelReader.read(file), file.toString());
        }
    }

    @Test
    void truncatedRealModelIsRefused() throws IOException {
        byte[] head = new byte[8 << 20];
        try (InputStream in = ModelReaderTest.class.getClassLoader().getResourceAsStream(REAL_MODEL)) {
            assertNotNull(in, REAL_MODEL + " is not on the test class path");
            assertEquals(head.length, in.readNBytes(head, 0, head.length));
        }
        Path file = write(dir, "model.onnx", head);
        InvalidModelException e = fails(InvalidModelException.class, () -> ModelReader.read(file), file.toString(),
                "truncated");
        assertEquals(ErrorCode.INVALID_PROTOBUF, e.code());
    }

    @Test
    void irVersionTooOldOrTooNewIsNamed() throws IOException {
        for (long ir : new long[] {2, 99}) {
            ModelProto m = model(addGraph()).toBuilder().setIrVersion(ir).build();
            failsFromFile(NotImplementedException.class, m, "IR version " + ir);
        }
    }

    @Test
    void missingIrVersionIsNotAModel() throws IOException {
        failsFromFile(InvalidModelException.class, model(addGraph()).toBuilder().clearIrVersion().build(),
                "ir_version");
    }

    @Test
    void opsetTooNewIsNamed() throws IOException {
        ModelProto m = model(addGraph()).toBuilder().clearOpsetImport()
                .addOpsetImport(OperatorSetIdProto.newBuilder().setVersion(99)).build();
        failsFromFile(NotImplementedException.class, m, "opset 99");
    }

    @Test
    void missingOpsetImportOrGraphIsRefused() throws IOException {
        failsFromFile(InvalidModelException.class, model(addGraph()).toBuilder().clearOpsetImport().build(),
                "opset_import");
        failsFromFile(InvalidModelException.class, model(addGraph()).toBuilder().clearGraph().build(), "no graph");
    }

    @Test
    void threeNodeCycleNamesItsNodes() throws IOException {
        GraphProto g = GraphProto.newBuilder().addInput(value("X", 1))
                .addNode(node("first", "Add", "X,c", "a"))
                .addNode(node("second", "Relu", "a", "b"))
                .addNode(node("third", "Relu", "b", "c"))
                .addOutput(value("c", 1)).build();
        failsFromFile(InvalidModelException.class, model(g), "cycle", "first", "second", "third");
    }

    @Test
    void unknownInputIsNamed() throws IOException {
        GraphProto g = GraphProto.newBuilder().addInput(value("X", 1))
                .addNode(node("reader", "Add", "X,ghost", "Y")).addOutput(value("Y", 1)).build();
        failsFromFile(InvalidModelException.class, model(g), "reader", "'ghost'");
    }

    @Test
    void unproducedGraphOutputIsNamed() throws IOException {
        GraphProto g = addGraph().toBuilder().addOutput(value("Z", 1)).build();
        failsFromFile(InvalidModelException.class, model(g), "graph output 'Z'");
    }

    @Test
    void valueProducedTwiceIsNamed() throws IOException {
        GraphProto g = addGraph().toBuilder().addNode(node("again", "Relu", "X", "Y")).build();
        failsFromFile(InvalidModelException.class, model(g), "'Y'", "again");
    }

    @Test
    void initializerRawDataOneByteShortIsNamed() throws IOException {
        TensorProto w = floats("W", new float[] {1, 2, 3, 4}, 2, 2);
        TensorProto shortW = w.toBuilder().setRawData(w.getRawData().substring(0, 15)).build();
        GraphProto g = addGraph().toBuilder().setInitializer(0, shortW).build();
        failsFromFile(InvalidModelException.class, model(g), "initializer 'W'", "16 bytes", "found 15");
    }

    @Test
    void initializerInTheWrongTypedFieldIsNamed() throws IOException {
        TensorProto w = TensorProto.newBuilder().setName("W").setDataType(TestModels.FLOAT).addDims(2).addDims(2)
                .addInt64Data(1).addInt64Data(2).addInt64Data(3).addInt64Data(4).build();
        GraphProto g = addGraph().toBuilder().setInitializer(0, w).build();
        failsFromFile(InvalidModelException.class, model(g), "initializer 'W'", "float_data", "found 0");
    }

    @Test
    void shapeTooLargeIsRefusedBeforeAllocating() throws IOException {
        long huge = 1L << 40;
        TensorProto w = TensorProto.newBuilder().setName("W").setDataType(TestModels.FLOAT).addDims(huge)
                .addDims(huge).setRawData(ByteString.EMPTY).build();
        GraphProto g = addGraph().toBuilder().setInitializer(0, w).build();
        failsFromFile(InvalidModelException.class, model(g), "'W'", huge + "x" + huge, "too large");
        TensorProto typed = w.toBuilder().clearRawData().build();
        failsFromFile(InvalidModelException.class, model(g.toBuilder().setInitializer(0, typed).build()), "'W'",
                "too large");
    }

    @Test
    void unsupportedInitializerTypeIsNamed() throws IOException {
        TensorProto w = TensorProto.newBuilder().setName("W").setDataType(TensorProto.DataType.COMPLEX64_VALUE)
                .addDims(4).setRawData(ByteString.copyFrom(new byte[4])).build();
        GraphProto g = addGraph().toBuilder().setInitializer(0, w).build();
        failsFromFile(NotImplementedException.class, model(g), "'W'", "complex64");
    }

    /** Graph k holds one If node whose then_branch is graph k + 1; the innermost graph is empty. */
    static GraphProto nested(int depth) {
        GraphProto inner = GraphProto.newBuilder().setName("g" + depth).build();
        for (int k = depth - 1; k >= 0; k--) {
            inner = GraphProto.newBuilder().setName("g" + k)
                    .addNode(node("if" + k, "If", "", "", graphAttr("then_branch", inner))).build();
        }
        return inner;
    }

    @Test
    void subgraphsNestedFortyDeepAreRefused() throws IOException {
        int limit = Graph.MAX_NESTING;
        ModelReader.read(model(nested(limit)).toByteArray(), null);
        failsFromFile(InvalidModelException.class, model(nested(40)), "nested", "'if" + limit + "'");
    }

    @Test
    void nestingBeyondTheProtobufLimitIsRefused() throws IOException {
        failsFromFile(InvalidModelException.class, model(nested(200)), "nests messages too deeply");
    }

    @Test
    void unknownElementTypeOfAValueIsNamed() throws IOException {
        GraphProto g = addGraph();
        GraphProto bad = g.toBuilder().setInput(0, g.getInput(0).toBuilder().setType(g.getInput(0).getType()
                .toBuilder().setTensorType(g.getInput(0).getType().getTensorType().toBuilder().setElemType(99))))
                .build();
        failsFromFile(InvalidModelException.class, model(bad), "value 'X'", "99");
    }

    @Test
    void externalDataFromBytesWithoutFolderNamesTheOption() {
        GraphProto g = addGraph().toBuilder().setInitializer(0, external("W", "w.bin", 0, 16, 2, 2)).build();
        fails(InvalidModelException.class, () -> ModelReader.read(model(g).toByteArray(), null),
                "model (from bytes)", "initializer 'W'", "w.bin",
                "session.model_external_initializers_file_folder_path");
    }

    @Test
    void externalDataIsCheckedAtLoadTime() throws IOException {
        write(dir, "w.bin", new byte[8]);
        GraphProto g = addGraph().toBuilder().setInitializer(0, external("W", "w.bin", 0, -1, 2, 2)).build();
        failsFromFile(InvalidModelException.class, model(g), "initializer 'W'", "16 bytes", "has 8");
    }
}
