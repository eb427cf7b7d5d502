package io.ortex.onnx;

import static io.ortex.onnx.ModelReaderTest.fails;
import static io.ortex.onnx.TestModels.addGraph;
import static io.ortex.onnx.TestModels.floats;
import static io.ortex.onnx.TestModels.list;
import static io.ortex.onnx.TestModels.model;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ortex.api.InvalidArgumentException;
import io.ortex.api.OrtexException;
import io.ortex.api.spi.ExternalDataInfo;
import io.ortex.onnx.proto.Onnx.GraphProto;
import io.ortex.onnx.proto.Onnx.ModelProto;
import io.ortex.onnx.proto.Onnx.TensorProto;
import java.io.IOException;
import java.nio.MappedByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ModelWriterTest {
    private static final int BIG = 100_000;

    @TempDir
    Path dir;

    /** The add model with a second, large initializer B (BIG floats) and a small one S. */
    private static ModelProto bigModel() {
        float[] big = new float[BIG];
        for (int i = 0; i < big.length; i++) {
            big[i] = i * 0.5f;
        }
        return model(addGraph().toBuilder().addInitializer(floats("B", big, BIG))
                .addInitializer(floats("S", new float[] {7, 8, 9}, 3)).build());
    }

    @Test
    void embeddedModelRoundTrips() throws IOException {
        Path file = dir.resolve("sub/folder/m.onnx");
        ModelWriter.write(bigModel(), file);
        OnnxModel back = ModelReader.read(file);
        assertEquals(bigModel(), back.proto());
        assertEquals(99_999 * 0.5f, back.graph().localValue("B").initializer().orElseThrow().floats()[BIG - 1]);
        assertArrayEquals(new String[] {"m.onnx"}, list(file.getParent()));
    }

    @Test
    void externalDataModelRoundTripsAndIsMapped() throws IOException {
        Path file = dir.resolve("m.onnx");
        ModelWriter.write(bigModel(), file, "m.onnx.data", 64);
        assertArrayEquals(new String[] {"m.onnx", "m.onnx.data"}, list(dir));
        OnnxModel back = ModelReader.read(file);
        Graph g = back.graph();
        Value big = g.localValue("B");
        Value w = g.localValue("W");
        Value small = g.localValue("S");
        assertTrue(ExternalData.isExternal(big.initializerProto()));
        assertTrue(small.externalData().isEmpty(), "initializers under the threshold stay embedded");
        assertTrue(w.externalData().isEmpty());
        assertArrayEquals(bigModel().getGraph().getInitializer(1).getRawData().toByteArray(),
                TensorCodec.toBytes(big.initializer().orElseThrow()).array());
        assertArrayEquals(new float[] {7, 8, 9}, small.initializer().orElseThrow().floats());
        ExternalDataInfo info = big.externalData().orElseThrow();
        assertEquals(dir.resolve("m.onnx.data").toAbsolutePath(), info.file());
        assertEquals(0, info.offset() % ModelWriter.ALIGNMENT);
        assertEquals(BIG * 4L, info.length());
        assertInstanceOf(MappedByteBuffer.class, ExternalData.bytes(info, "initializer 'B'"),
                "a big initializer is mapped, not read onto the heap");
    }

    @Test
    void externalOffsetsAreAligned() throws IOException {
        ModelProto m = model(GraphProto.newBuilder()
                .addInitializer(floats("a", new float[] {1, 2, 3}, 3))
                .addInitializer(floats("b", new float[] {4, 5}, 2)).build());
        Path file = dir.resolve("m.onnx");
        ModelWriter.write(m, file, "w.bin", 1);
        Graph g = ModelReader.read(file).graph();
        assertEquals(0, g.localValue("a").externalData().orElseThrow().offset());
        assertEquals(64, g.localValue("b").externalData().orElseThrow().offset());
        assertEquals(72, Files.size(dir.resolve("w.bin")));
        assertArrayEquals(new float[] {4, 5}, g.localValue("b").initializer().orElseThrow().floats());
    }

    @Test
    void overwritesAnExistingModel() throws IOException {
        Path file = dir.resolve("m.onnx");
        ModelWriter.write(bigModel(), file);
        ModelWriter.write(model(addGraph()), file);
        assertEquals(model(addGraph()), ModelReader.read(file).proto());
        assertArrayEquals(new String[] {"m.onnx"}, list(dir));
    }

    @Test
    void contentThatFailsLeavesNoTempFileAndKeepsTheTarget() throws IOException {
        Path file = TestModels.write(dir, "m.onnx", model(addGraph()));
        byte[] before = Files.readAllBytes(file);
        OrtexException io = fails(OrtexException.class, () -> ModelWriter.writeAtomically(file, out -> {
            out.write(new byte[100_000]);
            throw new IOException("disk full");
        }), file.toString(), "disk full");
        assertInstanceOf(IOException.class, io.getCause());
        IllegalStateException bug = new IllegalStateException("writer bug");
        assertSame(bug, assertThrows(IllegalStateException.class, () -> ModelWriter.writeAtomically(file, out -> {
            out.write(1);
            throw bug;
        })));
        assertThrows(StackOverflowError.class, () -> ModelWriter.writeAtomically(file, out -> {
            throw new StackOverflowError();
        }));
        assertArrayEquals(new String[] {"m.onnx"}, list(dir));
        assertArrayEquals(before, Files.readAllBytes(file));
    }

    @Test
    void targetThatIsAFolderLeavesNoTempFile() throws IOException {
        Path target = Files.createDirectory(dir.resolve("m.onnx"));
        Files.write(target.resolve("keep.txt"), new byte[] {1});
        fails(OrtexException.class, () -> ModelWriter.write(model(addGraph()), target), target.toString());
        assertArrayEquals(new String[] {"m.onnx"}, list(dir));
        assertArrayEquals(new String[] {"keep.txt"}, list(target));
    }

    @Test
    void folderThatCannotBeCreatedIsNamed() throws IOException {
        Path notAFolder = TestModels.write(dir, "file", new byte[] {1});
        Path target = notAFolder.resolve("m.onnx");
        fails(OrtexException.class, () -> ModelWriter.write(model(addGraph()), target), target.toString());
        assertArrayEquals(new String[] {"file"}, list(dir));
    }

    @Test
    void failedExternalWriteKeepsBothFilesAndLeavesNoTempFile() throws IOException {
        Path file = dir.resolve("m.onnx");
        ModelWriter.write(bigModel(), file, "m.onnx.data", 64);
        byte[] model = Files.readAllBytes(file);
        byte[] data = Files.readAllBytes(dir.resolve("m.onnx.data"));
        // the data file is moved first; make the model's move fail by putting a non-empty folder in its place
        Path other = dir.resolve("other.onnx");
        Files.createDirectory(other);
        Files.write(other.resolve("keep.txt"), new byte[] {1});
        fails(OrtexException.class, () -> ModelWriter.write(bigModel(), other, "other.data", 64),
                other.toString());
        assertArrayEquals(new String[] {"keep.txt"}, list(other));
        // a data file that cannot replace a folder: the model is left as it was
        Path blocked = Files.createDirectory(dir.resolve("blocked.data"));
        Files.write(blocked.resolve("keep.txt"), new byte[] {1});
        fails(OrtexException.class, () -> ModelWriter.write(model(addGraph()), file, "blocked.data", 1),
                file.toString());
        assertArrayEquals(model, Files.readAllBytes(file));
        assertArrayEquals(data, Files.readAllBytes(dir.resolve("m.onnx.data")));
        // other.data, placed before the model's move failed, is taken back with it
        assertEquals(Set.of("m.onnx", "m.onnx.data", "other.onnx", "blocked.data"),
                Set.of(list(dir)), "no temporary file is left");
    }

    @Test
    void externalNameMustStayInTheFolderAndDifferFromTheModel() {
        Path file = dir.resolve("m.onnx");
        fails(InvalidArgumentException.class, () -> ModelWriter.write(bigModel(), file, "../w.bin", 64),
                "'../w.bin'", "escapes");
        fails(InvalidArgumentException.class, () -> ModelWriter.write(bigModel(), file, "/tmp/w.bin", 64),
                "'/tmp/w.bin'");
        fails(InvalidArgumentException.class, () -> ModelWriter.write(bigModel(), file, "m.onnx", 64),
                "'m.onnx'", file.toString());
        assertTrue(Files.notExists(file));
    }

    @Test
    void writtenFilesGetNormalPermissions() throws IOException {
        Path probe = Files.createFile(dir.resolve("probe"));
        Set<PosixFilePermission> normal = Files.getPosixFilePermissions(probe);
        Path file = dir.resolve("m.onnx");
        ModelWriter.write(bigModel(), file, "m.data", 64);
        assertEquals(normal, Files.getPosixFilePermissions(file), "not the owner-only mode of a temp file");
        assertEquals(normal, Files.getPosixFilePermissions(dir.resolve("m.data")));
        Set<PosixFilePermission> custom = PosixFilePermissions.fromString("rw-rw----");
        Files.setPosixFilePermissions(file, custom);
        ModelWriter.write(model(addGraph()), file);
        assertEquals(custom, Files.getPosixFilePermissions(file), "replacing a file keeps its permissions");
    }

    @Test
    void typedFieldInitializersStayEmbedded() throws IOException {
        TensorProto typed = TensorProto.newBuilder().setName("T").setDataType(TestModels.FLOAT).addDims(2)
                .addFloatData(1).addFloatData(2).build();
        Path file = dir.resolve("m.onnx");
        ModelWriter.write(model(GraphProto.newBuilder().addInitializer(typed).build()), file, "w.bin", 0);
        Value t = ModelReader.read(file).graph().localValue("T");
        assertTrue(t.externalData().isEmpty());
        assertArrayEquals(new float[] {1, 2}, t.initializer().orElseThrow().floats());
    }
}
