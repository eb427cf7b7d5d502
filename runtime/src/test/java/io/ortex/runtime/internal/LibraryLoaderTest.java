package io.ortex.runtime.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ortex.api.EpInUseException;
import io.ortex.api.ErrorCode;
import io.ortex.api.InvalidArgumentException;
import io.ortex.api.Session;
import io.ortex.api.SessionOptions;
import io.ortex.api.spi.EpFactory;
import io.ortex.api.spi.EpLibraryLoader;
import io.ortex.api.spi.FusionOptions;
import io.ortex.api.spi.LoadedEpLibrary;
import io.ortex.ep.cpu.CpuEpFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * EP libraries that are not jars go to the EP library loaders: the first that accepts a file loads it, its factories
 * become a library under the registration name, and unloading waits for the sessions holding it.
 */
class LibraryLoaderTest {
    /** Loads files ending in {@code .fake}: one Mul EP per file, and counts unloads. */
    static final class FakeLoader implements EpLibraryLoader {
        final AtomicInteger loads = new AtomicInteger();
        final AtomicInteger unloads = new AtomicInteger();
        final List<Map<String, String>> configs = new CopyOnWriteArrayList<>();

        @Override
        public String description() {
            return "fake libraries (.fake)";
        }

        @Override
        public boolean accepts(Path file) {
            return file.getFileName().toString().endsWith(".fake");
        }

        @Override
        public LoadedEpLibrary load(String name, Path file, Map<String, String> environmentConfig) {
            configs.add(environmentConfig);
            if (file.getFileName().toString().startsWith("broken")) {
                throw new InvalidArgumentException(file + " is not a library");
            }
            loads.incrementAndGet();
            EpFactory f = new CountingEpFactory("FakeMul", () -> new FakeEp("FakeMul",
                    (g, s) -> s.addNodesToFuse(FakeEp.nodes(g, "mul"), FusionOptions.DEFAULT)));
            return new LoadedEpLibrary() {
                @Override
                public List<EpFactory> factories() {
                    return List.of(f);
                }

                @Override
                public void close() {
                    unloads.incrementAndGet();
                }
            };
        }
    }

    private static RuntimeEnvironment environment(List<EpLibraryLoader> loaders) {
        return new RuntimeEnvironment(Map.of(), List.of(TestDevices.CPU), List.of(new CpuEpFactory()),
                () -> List.copyOf(loaders));
    }

    @Test
    void aFileThatIsNotAJarGoesToTheLoaderThatAcceptsIt(@TempDir Path dir) throws Exception {
        FakeLoader loader = new FakeLoader();
        Path lib = Files.writeString(dir.resolve("vendor.fake"), "native code");
        try (RuntimeEnvironment env = environment(List.of(loader))) {
            env.registerLibrary("vendor", lib);
            assertEquals(1, loader.loads.get());
            assertEquals(1, LibraryRegistrationTest.devicesOf(env, "FakeMul").size());
            try (Session s = env.createSession(TestModels.addMulRelu().bytes(), new SessionOptions()
                    .appendExecutionProvider(LibraryRegistrationTest.devicesOf(env, "FakeMul"), Map.of()))) {
                assertEquals(List.of("FakeMul", "CPUExecutionProvider"), s.executionProviders());
                EpInUseException held = assertThrows(EpInUseException.class, () -> env.unregisterLibrary("vendor"));
                assertTrue(held.getMessage().contains(s.id()), held.getMessage());
                assertEquals(0, loader.unloads.get(), "not unloaded while a session holds it");
            }
            env.unregisterLibrary("vendor");
            assertEquals(1, loader.unloads.get());
            assertTrue(LibraryRegistrationTest.devicesOf(env, "FakeMul").isEmpty());
        }
    }

    @Test
    void aLoaderThatGoesAwayTakesItsLibrariesAlongAfterTheirSessions(@TempDir Path dir) throws Exception {
        FakeLoader loader = new FakeLoader();
        List<EpLibraryLoader> loaders = new CopyOnWriteArrayList<>(List.of(loader));
        Path lib = Files.writeString(dir.resolve("vendor.fake"), "native code");
        try (RuntimeEnvironment env = environment(loaders)) {
            env.registerLibrary("vendor", lib);
            Session s = env.createSession(TestModels.mul().bytes(), new SessionOptions()
                    .appendExecutionProvider(LibraryRegistrationTest.devicesOf(env, "FakeMul"), Map.of()));
            loaders.remove(loader);
            Thread closer = new Thread(() -> {
                sleep(300);
                s.close();
            });
            closer.start();
            long t0 = System.nanoTime();
            env.withdrawLoadedBy(loader, Duration.ofSeconds(10), true);
            assertTrue(System.nanoTime() - t0 >= 250_000_000L, "the withdrawal waited for the session");
            closer.join();
            assertEquals(1, loader.unloads.get());
            assertTrue(LibraryRegistrationTest.devicesOf(env, "FakeMul").isEmpty());
            InvalidArgumentException none = assertThrows(InvalidArgumentException.class,
                    () -> env.registerLibrary("again", lib));
            assertTrue(none.getMessage().contains("no EP library loader takes it (none is installed)"),
                    none.getMessage());
        }
    }

    @Test
    void registrationErrorsNameTheLibraryAndLeaveNothingBehind(@TempDir Path dir) throws Exception {
        FakeLoader loader = new FakeLoader();
        try (RuntimeEnvironment env = environment(new ArrayList<>(List.of(loader)))) {
            InvalidArgumentException missing = assertThrows(InvalidArgumentException.class,
                    () -> env.registerLibrary("gone", dir.resolve("gone.fake")));
            assertEquals(ErrorCode.NO_SUCH_FILE, missing.code());
            assertTrue(missing.getMessage().contains("gone.fake does not exist"), missing.getMessage());
            Path broken = Files.writeString(dir.resolve("broken.fake"), "x");
            assertThrows(InvalidArgumentException.class, () -> env.registerLibrary("broken", broken));
            Path other = Files.writeString(dir.resolve("lib.other"), "x");
            InvalidArgumentException unknown = assertThrows(InvalidArgumentException.class,
                    () -> env.registerLibrary("other", other));
            assertTrue(unknown.getMessage().contains("installed: fake libraries (.fake)"), unknown.getMessage());
            assertEquals(1, env.epDevices().size(), "only the CPU EP");
            Path ok = Files.writeString(dir.resolve("vendor.fake"), "x");
            env.registerLibrary("vendor", ok);
            InvalidArgumentException twice = assertThrows(InvalidArgumentException.class,
                    () -> env.registerLibrary("vendor", ok));
            assertTrue(twice.getMessage().contains("already registered"), twice.getMessage());
            assertEquals(1, loader.loads.get(), "a taken name is refused before loading");
        }
        assertEquals(1, loader.unloads.get(), "closing the environment unloads the library");
    }

    @Test
    void laterEpsLearnWhichNodesAreTakenAndEveryEpSeesTheThreadCount() {
        List<String> seen = new CopyOnWriteArrayList<>();
        CountingEpFactory first = new CountingEpFactory("First", () -> new FakeEp("First",
                (g, s) -> s.addNodesToFuse(FakeEp.nodes(g, "mul"))));
        CountingEpFactory second = new CountingEpFactory("Second", () -> new FakeEp("Second", (g, s) -> {
            for (var n : g.nodes()) {
                seen.add(n.name() + "=" + s.assignedEp(n).orElse("-"));
            }
            var view = g.viewOf(FakeEp.nodes(g, "add", "relu"));
            assertEquals(2, view.nodes().size());
            assertInstanceOf(byte[].class, view.exportModel(io.ortex.api.spi.ModelExportOptions.DEFAULT).bytes());
        }));
        try (RuntimeEnvironment env = new RuntimeEnvironment(Map.of(), List.of(TestDevices.CPU),
                List.of(new CpuEpFactory(), first, second));
             Session s = env.createSession(TestModels.addMulRelu().bytes(), new SessionOptions().intraOpThreads(3)
                     .appendExecutionProvider(LibraryRegistrationTest.devicesOf(env, "First"), Map.of())
                     .appendExecutionProvider(LibraryRegistrationTest.devicesOf(env, "Second"), Map.of()))) {
            assertEquals(List.of("add=-", "mul=First", "relu=-"), seen);
            assertEquals("3", second.lastConfig.get(EpFactory.SESSION_INTRA_OP_THREADS));
        }
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
