package io.ortex.onnx;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ortex.api.OrtexException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Staged writes: nothing visible before the commit, create-new never replaces, abandoned temporaries go away. */
class StagedFilesTest {
    @TempDir
    Path dir;

    private List<String> files() throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            return s.map(p -> p.getFileName().toString()).sorted().toList();
        }
    }

    @Test
    void nothingIsVisibleUnderATargetNameBeforeTheCommit() throws IOException {
        try (StagedFiles f = StagedFiles.createNew()) {
            f.add(dir.resolve("a.bin"), out -> out.write(1));
            f.add(dir.resolve("b.onnx"), out -> out.write(2));
            assertFalse(Files.exists(dir.resolve("a.bin")));
            assertFalse(Files.exists(dir.resolve("b.onnx")));
            assertEquals(List.of(dir.resolve("a.bin"), dir.resolve("b.onnx")), f.commit());
        }
        assertEquals(List.of("a.bin", "b.onnx"), files());
    }

    @Test
    void createNewRefusesATakenTargetAndTakesBackWhatItPlaced() throws IOException {
        Files.write(dir.resolve("b.onnx"), new byte[] {7});
        try (StagedFiles f = StagedFiles.createNew()) {
            f.add(dir.resolve("a.bin"), out -> out.write(1));
            f.add(dir.resolve("b.onnx"), out -> out.write(2));
            OrtexException e = assertThrows(OrtexException.class, f::commit);
            assertTrue(e.getMessage().contains("b.onnx exists already"), e.getMessage());
        }
        assertEquals(List.of("b.onnx"), files(), "a.bin was taken back and the temporaries removed");
        assertArrayEquals(new byte[] {7}, Files.readAllBytes(dir.resolve("b.onnx")));
    }

    @Test
    void replacingReplaces() throws IOException {
        Files.write(dir.resolve("m.onnx"), new byte[] {7});
        ModelWriter.writeAtomically(dir.resolve("m.onnx"), out -> out.write(8));
        assertArrayEquals(new byte[] {8}, Files.readAllBytes(dir.resolve("m.onnx")));
        assertEquals(List.of("m.onnx"), files());
    }

    @Test
    void temporariesOfAProcessThatIsGoneAreRemovedOnTheNextWrite() throws Exception {
        Process gone = new ProcessBuilder("true").start();
        gone.waitFor();
        Path abandoned = Files.write(dir.resolve(".m.onnx." + gone.pid() + "-1f.tmp"), new byte[] {1});
        Path mine = Files.write(dir.resolve(".m.onnx." + ProcessHandle.current().pid() + "-2f.tmp"), new byte[] {1});
        Path other = Files.write(dir.resolve(".x.onnx." + gone.pid() + "-3f.tmp"), new byte[] {1});
        ModelWriter.writeAtomically(dir.resolve("m.onnx"), out -> out.write(8));
        assertFalse(Files.exists(abandoned));
        assertTrue(Files.exists(mine), "a live process's temporary is left alone");
        assertTrue(Files.exists(other), "only the target's own temporaries are looked at");
    }

    @Test
    void contentThatFailsLeavesNothing() throws IOException {
        try (StagedFiles f = StagedFiles.replacing()) {
            assertThrows(IllegalStateException.class, () -> f.add(dir.resolve("m.onnx"), out -> {
                out.write(1);
                throw new IllegalStateException("boom");
            }));
        }
        assertEquals(List.of(), files());
    }
}
