package io.ortex.onnx;

import static io.ortex.onnx.ModelReaderTest.fails;
import static io.ortex.onnx.TestModels.addGraph;
import static io.ortex.onnx.TestModels.external;
import static io.ortex.onnx.TestModels.model;
import static io.ortex.onnx.TestModels.write;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ortex.api.InvalidArgumentException;
import io.ortex.api.InvalidModelException;
import io.ortex.api.Tensor;
import io.ortex.api.spi.ExternalDataInfo;
import io.ortex.onnx.proto.Onnx.TensorProto;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.MappedByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ExternalDataTest {
    private static final String MODEL = "model m.onnx";

    @TempDir
    Path root;
    Path folder;

    @BeforeEach
    void setUp() throws IOException {
        folder = Files.createDirectory(root.resolve("model"));
    }

    /** Little-endian bytes of 0, 1, 2, ... as floats. */
    private static byte[] floatBytes(int count) {
        ByteBuffer b = ByteBuffer.allocate(count * 4).order(ByteOrder.LITTLE_ENDIAN);
        for (int i = 0; i < count; i++) {
            b.putFloat(i);
        }
        return b.array();
    }

    @Test
    void locatesOffsetAndLength() throws IOException {
        Path file = write(folder, "w.bin", new byte[100]);
        ExternalDataInfo info = ExternalData.locate(external("w", "w.bin", 8, 16, 4), folder, MODEL);
        assertEquals(new ExternalDataInfo(file.toAbsolutePath(), 8, 16), info);
        ExternalDataInfo rest = ExternalData.locate(external("w", "w.bin", 36, -1, 16), folder, MODEL);
        assertEquals(64, rest.length(), "without a length the data runs to the end of the file");
        assertTrue(ExternalData.isExternal(external("w", "w.bin", 0, 0)));
        assertFalse(ExternalData.isExternal(TestModels.floats("w", new float[] {1}, 1)));
    }

    @Test
    void locationInASubfolderIsAllowed() throws IOException {
        Files.createDirectory(folder.resolve("weights"));
        write(folder.resolve("weights"), "w.bin", new byte[16]);
        assertEquals(16, ExternalData.locate(external("w", "weights/../weights/w.bin", 0, 16, 4), folder, MODEL)
                .length());
    }

    @Test
    void parentFolderIsRefused() throws IOException {
        write(root, "x.bin", new byte[16]);
        fails(InvalidModelException.class,
                () -> ExternalData.locate(external("w", "../x.bin", 0, 16, 4), folder, MODEL),
                MODEL, "initializer 'w'", "'../x.bin'", "escapes");
    }

    @Test
    void absolutePathIsRefused() {
        fails(InvalidModelException.class,
                () -> ExternalData.locate(external("w", "/etc/passwd", 0, 16, 4), folder, MODEL),
                MODEL, "initializer 'w'", "'/etc/passwd'", "absolute");
    }

    @Test
    void symbolicLinkOutOfTheFolderIsRefused() throws IOException {
        Path outside = write(root, "secret.bin", new byte[16]);
        Files.createSymbolicLink(folder.resolve("link.bin"), outside);
        fails(InvalidModelException.class,
                () -> ExternalData.locate(external("w", "link.bin", 0, 16, 4), folder, MODEL),
                MODEL, "initializer 'w'", "'link.bin'", "symbolic link");
        Files.createSymbolicLink(folder.resolve("dir"), root);
        fails(InvalidModelException.class,
                () -> ExternalData.locate(external("w", "dir/secret.bin", 0, 16, 4), folder, MODEL),
                "'dir/secret.bin'", "symbolic link");
    }

    @Test
    void symbolicLinkInsideTheFolderIsAllowed() throws IOException {
        write(folder, "real.bin", new byte[16]);
        Files.createSymbolicLink(folder.resolve("alias.bin"), folder.resolve("real.bin"));
        assertEquals(16, ExternalData.locate(external("w", "alias.bin", 0, 16, 4), folder, MODEL).length());
    }

    @Test
    void rangePastTheEndOfTheFileIsRefused() throws IOException {
        write(folder, "w.bin", new byte[16]);
        fails(InvalidModelException.class,
                () -> ExternalData.locate(external("w", "w.bin", 8, 16, 4), folder, MODEL),
                MODEL, "initializer 'w'", "offset 8", "length 16", "'w.bin'", "16 bytes");
        fails(InvalidModelException.class,
                () -> ExternalData.locate(external("w", "w.bin", 17, -1, 4), folder, MODEL), "offset 17");
        fails(InvalidModelException.class,
                () -> ExternalData.locate(external("w", "w.bin", -1, 4, 1).toBuilder()
                        .addExternalData(TestModels.entry("offset", "-1")).build(), folder, MODEL), "offset -1");
        fails(InvalidModelException.class,
                () -> ExternalData.locate(external("w", "w.bin", 0, -1, 1).toBuilder()
                        .addExternalData(TestModels.entry("length", "-4")).build(), folder, MODEL), "length -4");
        fails(InvalidModelException.class, () -> ExternalData.locate(external("w", "w.bin", 0, Long.MAX_VALUE, 1),
                folder, MODEL), "length " + Long.MAX_VALUE);
    }

    @Test
    void missingFileIsNamed() {
        fails(InvalidModelException.class,
                () -> ExternalData.locate(external("w", "gone.bin", 0, 16, 4), folder, MODEL),
                MODEL, "initializer 'w'", "'gone.bin'", "does not exist");
    }

    @Test
    void folderAsLocationIsRefused() throws IOException {
        Files.createDirectory(folder.resolve("sub"));
        fails(InvalidModelException.class,
                () -> ExternalData.locate(external("w", "sub", 0, -1, 0), folder, MODEL),
                "initializer 'w'", "'sub'", "not a regular file");
    }

    @Test
    void noFolderNamesTheOption() {
        fails(InvalidModelException.class,
                () -> ExternalData.locate(external("w", "w.bin", 0, 16, 4), null, "model (from bytes)"),
                "model (from bytes)", "initializer 'w'", "session.model_external_initializers_file_folder_path");
    }

    @Test
    void badEntriesAreNamed() {
        TensorProto noLocation = external("w", "", 0, 16, 4);
        fails(InvalidModelException.class, () -> ExternalData.locate(noLocation, folder, MODEL),
                "initializer 'w'", "without a location");
        TensorProto badOffset = external("w", "w.bin", -1, 16, 4).toBuilder()
                .addExternalData(TestModels.entry("offset", "ten")).build();
        fails(InvalidModelException.class, () -> ExternalData.locate(badOffset, folder, MODEL),
                "initializer 'w'", "offset 'ten'");
        fails(InvalidModelException.class,
                () -> ExternalData.locate(external("w", "a\0b", 0, 16, 4), folder, MODEL), "not a valid path");
    }

    @Test
    void readsTensorsSmallAndLarge() throws IOException {
        int large = (int) (ExternalData.MAP_THRESHOLD / 4) * 2;
        byte[] bytes = floatBytes(large);
        write(folder, "w.bin", bytes);
        TensorProto small = external("s", "w.bin", 4, 12, 3);
        Tensor s = ExternalData.read(small, ExternalData.locate(small, folder, MODEL));
        assertArrayEquals(new float[] {1, 2, 3}, s.floats());
        TensorProto big = external("b", "w.bin", 0, -1, 2, large / 2);
        Tensor b = ExternalData.read(big, ExternalData.locate(big, folder, MODEL));
        assertArrayEquals(new long[] {2, large / 2}, b.shape());
        assertEquals(large - 1, b.floats()[large - 1]);
    }

    @Test
    void largeRangesAreMappedAndSmallOnesRead() throws IOException {
        int size = (int) ExternalData.MAP_THRESHOLD * 2;
        byte[] bytes = new byte[size];
        for (int i = 0; i < size; i++) {
            bytes[i] = (byte) i;
        }
        Path file = write(folder, "w.bin", bytes);
        ByteBuffer mapped = ExternalData.bytes(new ExternalDataInfo(file, 64, ExternalData.MAP_THRESHOLD), "big");
        assertInstanceOf(MappedByteBuffer.class, mapped, "a large range is mapped, not copied onto the heap");
        assertTrue(mapped.isDirect() && mapped.isReadOnly());
        assertEquals(ExternalData.MAP_THRESHOLD, mapped.remaining());
        assertEquals(64, mapped.get(0));
        ByteBuffer read = ExternalData.bytes(new ExternalDataInfo(file, 3, 10), "small");
        assertFalse(read.isDirect());
        assertTrue(read.isReadOnly());
        assertEquals(10, read.remaining());
        assertEquals(3, read.get(0));
    }

    @Test
    void bytesRefusesRangesItCannotServe() throws IOException {
        Path file = write(folder, "w.bin", new byte[16]);
        fails(InvalidArgumentException.class,
                () -> ExternalData.bytes(new ExternalDataInfo(file, 0, ExternalData.MAX_MAPPING + 1),
                        "initializer 'w'"),
                "initializer 'w'");
        fails(InvalidModelException.class, () -> ExternalData.bytes(new ExternalDataInfo(file, 8, 16),
                "initializer 'w'"),
                "initializer 'w'", file.toString(), "16 bytes");
    }

    @Test
    void decodesInPiecesWhenLargerThanOneRead() throws IOException {
        write(folder, "w.bin", floatBytes(1000));
        TensorProto t = external("w", "w.bin", 0, 4000, 10, 100);
        Tensor whole = ExternalData.read(t, ExternalData.locate(t, folder, MODEL), 4000);
        Tensor pieces = ExternalData.read(t, ExternalData.locate(t, folder, MODEL), 24);
        assertArrayEquals(whole.floats(), pieces.floats());
        assertEquals(999, pieces.floats()[999]);
    }

    @Test
    void lengthThatDoesNotFitTheShapeIsNamed() throws IOException {
        write(folder, "w.bin", new byte[64]);
        TensorProto t = external("w", "w.bin", 0, 12, 4);
        fails(InvalidModelException.class, () -> ExternalData.read(t, ExternalData.locate(t, folder, MODEL)),
                "initializer 'w'", "16 bytes", "has 12");
        TensorProto strings = t.toBuilder().setDataType(TensorProto.DataType.STRING_VALUE).build();
        fails(InvalidModelException.class, () -> ExternalData.read(strings,
                ExternalData.locate(strings, folder, MODEL)), "'w'", "external");
    }

    @Test
    void modelFromBytesUsesTheGivenFolder() throws IOException {
        write(folder, "w.bin", floatBytes(4));
        byte[] m = model(addGraph().toBuilder().setInitializer(0, external("W", "w.bin", 0, 16, 2, 2)).build())
                .toByteArray();
        OnnxModel loaded = ModelReader.read(m, folder);
        Value w = loaded.graph().localValue("W");
        assertArrayEquals(new float[] {0, 1, 2, 3}, w.initializer().orElseThrow().floats());
        assertEquals(folder.resolve("w.bin").toAbsolutePath(), w.externalData().orElseThrow().file());
        assertTrue(loaded.graph().localValue("X").externalData().isEmpty());
    }

    @Test
    void modelLoadRefusesEscapingLocations() throws IOException {
        write(root, "x.bin", floatBytes(4));
        for (String location : new String[] {"../x.bin", "/etc/passwd"}) {
            Path file = write(folder, "m.onnx", model(addGraph().toBuilder()
                    .setInitializer(0, external("W", location, 0, 16, 2, 2)).build()));
            fails(InvalidModelException.class, () -> ModelReader.read(file), file.toString(), "initializer 'W'",
                    "'" + location + "'");
        }
    }
}
