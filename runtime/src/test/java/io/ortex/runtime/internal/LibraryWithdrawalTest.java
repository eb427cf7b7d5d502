package io.ortex.runtime.internal;

import static io.ortex.runtime.internal.TestDevices.CPU;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ortex.api.Environment;
import io.ortex.api.EpDevice;
import io.ortex.api.EpLibraryInfo;
import io.ortex.api.EpUnavailableException;
import io.ortex.api.HardwareDevice;
import io.ortex.api.HardwareDeviceType;
import io.ortex.api.Session;
import io.ortex.api.SessionOptions;
import io.ortex.api.Tensor;
import io.ortex.api.spi.ExecutionProvider;
import io.ortex.api.spi.SupportedDevice;
import io.ortex.ep.cpu.CpuEpFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Removal of EP libraries for good, as the OSGi wiring does when an EP bundle stops ({@code withdrawLibrary}): the
 * fail and wait outcomes at the drain limit; libraries of factories added one by one; live virtual-device grants.
 */
class LibraryWithdrawalTest {
    private static final HardwareDevice VIRTUAL_NPU = new HardwareDevice(HardwareDeviceType.NPU, 0x4F58, 0, "tests",
            Map.of("is_virtual", "1"));
    private static final String EP = "FakeEP";
    private static final float[] X = {1, 2, 3, 4, 5, 6};
    private static final float[] Y = {2, 2, 2, -1, 0.5f, 3};

    private final List<FakeEp> eps = Collections.synchronizedList(new ArrayList<>());
    private final CountingEpFactory factory = new CountingEpFactory(EP, this::newEp);

    private ExecutionProvider newEp() {
        FakeEp ep = new FakeEp(EP, (g, s) -> g.nodes().stream().filter(n -> n.opType().equals("Mul"))
                .forEach(s::addSingleNode));
        eps.add(ep);
        return ep;
    }

    private static RuntimeEnvironment newEnvironment() {
        RuntimeEnvironment env = new RuntimeEnvironment(Map.of(), List.of(CPU));
        env.registerFactories("cpu.bundle", List.of(new CpuEpFactory()), false);
        return env;
    }

    private static Session openOn(RuntimeEnvironment env, String ep) {
        List<EpDevice> devices = env.epDevices().stream().filter(d -> d.epName().equals(ep)).toList();
        return env.createSession(TestModels.addMulAdd().bytes(),
                new SessionOptions().appendExecutionProvider(devices, Map.of()));
    }

    private static void checkRun(Session s) {
        Map<String, Tensor> out = s.run(Map.of("x", Tensor.ofFloats(X, 2, 3), "y", Tensor.ofFloats(Y, 2, 3)));
        assertArrayEquals(TestModels.addMulAddExpected(X, Y), out.get("out").floats());
    }

    @Test
    void failOutcomeFailsTheHoldersAtTheLimitAndReleasesTheLibrary() {
        try (RuntimeEnvironment env = newEnvironment()) {
            env.registerFactories("fake.bundle", List.of(factory), false);
            Session s = openOn(env, EP);
            checkRun(s);
            long start = System.nanoTime();
            env.withdrawLibrary("fake.bundle", Duration.ofMillis(200), true);
            assertTrue(System.nanoTime() - start >= TimeUnit.MILLISECONDS.toNanos(200));
            assertEquals(1, factory.released.get(), "the session's EP was released before the library");
            assertTrue(env.libraries().stream().noneMatch(l -> l.startsWith("fake.bundle")), env.libraries()
                    .toString());
            EpUnavailableException e = assertThrows(EpUnavailableException.class, () -> checkRun(s));
            assertTrue(e.getMessage().contains(EP) && e.getMessage().contains("fake.bundle"), e.getMessage());
            s.close();
            assertEquals(1, factory.released.get(), "closing a failed session releases nothing twice");
            assertTrue(eps.stream().allMatch(ep -> ep.callsAfterRelease.get() == 0));
        }
    }

    @Test
    void waitOutcomeWaitsPastTheLimitUntilTheSessionCloses() throws Exception {
        try (RuntimeEnvironment env = newEnvironment()) {
            env.registerFactories("fake.bundle", List.of(factory), false);
            Session s = openOn(env, EP);
            Thread remover = new Thread(() -> env.withdrawLibrary("fake.bundle", Duration.ofMillis(50), false));
            remover.start();
            Thread.sleep(400);
            assertTrue(remover.isAlive(), "still waiting, several limits later");
            assertTrue(env.epDevices().stream().noneMatch(d -> d.epName().equals(EP)), "devices hidden at once");
            checkRun(s);
            assertEquals(0, factory.released.get());
            s.close();
            remover.join(10_000);
            assertFalse(remover.isAlive());
            assertEquals(1, factory.released.get());
        }
    }

    @Test
    void epLibrariesShowTheHoldersAndTheDrainingState() throws Exception {
        try (RuntimeEnvironment env = newEnvironment()) {
            env.registerFactories("fake.bundle", List.of(factory), false);
            Session s = openOn(env, EP);
            EpLibraryInfo fake = library(env, "fake.bundle");
            assertEquals(EpLibraryInfo.State.ACTIVE, fake.state());
            assertEquals(List.of(s.id()), fake.holders());
            assertEquals(List.of(EP), fake.devices().stream().map(EpDevice::epName).toList());
            assertEquals(List.of(s.id()), library(env, "cpu.bundle").holders(), "the CPU fallback is held too");
            Thread remover = new Thread(() -> env.withdrawLibrary("fake.bundle", Duration.ofSeconds(30), false));
            remover.start();
            long end = System.currentTimeMillis() + 5_000;
            while (library(env, "fake.bundle").state() != EpLibraryInfo.State.DRAINING) {
                assertTrue(System.currentTimeMillis() < end, "the library never showed as draining");
                Thread.sleep(10);
            }
            assertEquals(List.of(s.id()), library(env, "fake.bundle").holders());
            assertEquals(1, library(env, "fake.bundle").devices().size(), "a draining library keeps its devices");
            s.close();
            remover.join(10_000);
            assertTrue(env.epLibraries().stream().noneMatch(l -> l.name().equals("fake.bundle")));
        }
    }

    private static EpLibraryInfo library(RuntimeEnvironment env, String name) {
        return env.epLibraries().stream().filter(l -> l.name().equals(name)).findFirst().orElseThrow();
    }

    @Test
    void withdrawingAnUnknownLibraryDoesNothing() {
        try (RuntimeEnvironment env = newEnvironment()) {
            env.withdrawLibrary("nothing", Duration.ofMillis(10), true);
            assertEquals(1, env.epDevices().size());
        }
    }

    @Test
    void factoriesAddedOneByOneFormOneLibrary() {
        try (RuntimeEnvironment env = newEnvironment()) {
            env.registerFactories("fake.bundle", List.of(factory), false);
            CountingEpFactory second = new CountingEpFactory("SecondEP", this::newEp);
            env.addFactories("fake.bundle", List.of(second));
            assertEquals(2, env.epDevices().stream().filter(d -> !d.epName().equals("CPUExecutionProvider")).count());
            try (Session s = openOn(env, "SecondEP")) {
                checkRun(s);
            }
            env.withdrawLibrary("fake.bundle", Duration.ofSeconds(1), true);
            assertEquals(1, env.epDevices().size(), "both EPs went with their library");
        }
    }

    @Test
    void theVirtualGrantChangesTheDevicesLive() {
        CountingEpFactory virtualOnly = new CountingEpFactory("VirtualEP", this::newEp) {
            @Override
            public List<SupportedDevice> supportedDevices(List<HardwareDevice> hardware, Map<String, String> config) {
                return "1".equals(config.get(Environment.ALLOW_VIRTUAL_DEVICES))
                        ? List.of(new SupportedDevice(VIRTUAL_NPU, Map.of(), Map.of())) : List.of();
            }
        };
        try (RuntimeEnvironment env = newEnvironment()) {
            env.registerFactories("virtual.bundle", List.of(virtualOnly), false);
            assertTrue(env.epDevices().stream().noneMatch(d -> d.epName().equals("VirtualEP")));
            assertTrue(env.regrantVirtualDevices("virtual.bundle", true));
            assertEquals(1, env.epDevices().stream().filter(d -> d.epName().equals("VirtualEP")).count());
            assertEquals("1", env.config().get(Environment.ALLOW_VIRTUAL_DEVICES));
            assertFalse(env.regrantVirtualDevices("virtual.bundle", true), "already granted");
            assertTrue(env.regrantVirtualDevices("virtual.bundle", false));
            assertTrue(env.epDevices().stream().noneMatch(d -> d.epName().equals("VirtualEP")));
            assertEquals(null, env.config().get(Environment.ALLOW_VIRTUAL_DEVICES));
        }
    }
}
