package io.ortex.runtime.internal.epcontext;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ortex.api.ErrorCode;
import io.ortex.api.InvalidModelException;
import io.ortex.api.spi.SharedBlob;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The shared context binary is read from disk once for the models of its group, and again once rewritten. */
class SharedContextFileTest {
    @TempDir
    Path dir;

    private static Map<String, byte[]> entries(String... texts) {
        Map<String, byte[]> m = new LinkedHashMap<>();
        for (String t : texts) {
            byte[] b = t.getBytes(StandardCharsets.UTF_8);
            m.put(SharedBlob.keyOf(b), b);
        }
        return m;
    }

    @Test
    void theModelsOfAGroupReadTheirBinaryOnceAndARewrittenBinaryIsReadAgain() throws Exception {
        Path bin = dir.resolve("group_shared.bin");
        Map<String, byte[]> written = entries("payload of model 1", "payload of model 2", "common weights");
        SharedContextFile.write(bin, written);
        List<String> keys = List.copyOf(written.keySet());
        long before = SharedContextFile.fileReads();
        Map<String, byte[]> first = SharedContextFile.read(bin, List.of(keys.get(0), keys.get(2)), "model 1");
        Map<String, byte[]> second = SharedContextFile.read(bin, List.of(keys.get(1), keys.get(2)), "model 2");
        assertEquals(1, SharedContextFile.fileReads() - before, "one read for the two models of the group");
        assertArrayEquals(written.get(keys.get(0)), first.get(keys.get(0)));
        assertArrayEquals(written.get(keys.get(2)), second.get(keys.get(2)));
        first.get(keys.get(2))[0] ^= 1;
        assertArrayEquals(written.get(keys.get(2)), SharedContextFile.read(bin, List.of(keys.get(2)), "m").get(
                keys.get(2)), "each caller gets its own copy");

        Map<String, byte[]> rewritten = entries("another payload");
        SharedContextFile.write(bin, rewritten);
        String key = rewritten.keySet().iterator().next();
        assertArrayEquals(rewritten.get(key), SharedContextFile.read(bin, List.of(key), "model 3").get(key));
        assertEquals(2, SharedContextFile.fileReads() - before, "the rewritten file is read again");
        InvalidModelException e = assertThrows(InvalidModelException.class,
                () -> SharedContextFile.read(bin, List.of(keys.get(0)), "model 1"));
        assertTrue(e.getMessage().contains("has no entry"), e.getMessage());

        Files.delete(bin);
        e = assertThrows(InvalidModelException.class, () -> SharedContextFile.read(bin, List.of(key), "model 3"));
        assertEquals(ErrorCode.NO_SUCH_FILE, e.code());
        assertTrue(e.getMessage().contains("does not exist"), e.getMessage());
    }

    @Test
    void sessionsLoadingAtOnceWaitForOneRead() throws Exception {
        Path bin = dir.resolve("concurrent_shared.bin");
        Map<String, byte[]> written = entries("a payload", "weights shared by everyone");
        SharedContextFile.write(bin, written);
        List<String> keys = List.copyOf(written.keySet());
        long before = SharedContextFile.fileReads();
        int threads = 8;
        java.util.concurrent.CyclicBarrier start = new java.util.concurrent.CyclicBarrier(threads);
        java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(threads);
        try {
            List<java.util.concurrent.Future<Map<String, byte[]>>> results = new java.util.ArrayList<>();
            for (int t = 0; t < threads; t++) {
                results.add(pool.submit(() -> {
                    start.await();
                    return SharedContextFile.read(bin, keys, "model");
                }));
            }
            for (java.util.concurrent.Future<Map<String, byte[]>> f : results) {
                Map<String, byte[]> got = f.get();
                for (String k : keys) {
                    assertArrayEquals(written.get(k), got.get(k));
                }
            }
        } finally {
            pool.shutdownNow();
        }
        assertEquals(1, SharedContextFile.fileReads() - before, "one read for eight sessions loading at once");
    }
}
