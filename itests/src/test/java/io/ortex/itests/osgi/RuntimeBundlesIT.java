package io.ortex.itests.osgi;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertTrue;

import io.ortex.api.EpDevice;
import io.ortex.api.EpDeviceListener;
import io.ortex.api.Environment;
import io.ortex.api.ExecutionProviderDevicePolicy;
import io.ortex.api.HardwareDeviceType;
import io.ortex.api.Session;
import io.ortex.api.SessionOptions;
import io.ortex.api.spi.EpFactory;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.Test;
import org.junit.runner.RunWith;
import org.ops4j.pax.exam.junit.PaxExam;
import org.osgi.framework.Bundle;
import org.osgi.framework.ServiceReference;

/**
 * The Ortex bundles in Felix: they resolve and start, the EP bundles' factories become EP devices of the Environment
 * service (the example EP's virtual NPU only while ConfigAdmin grants virtual devices, changed live), and a model
 * runs through the service, with the configured default policy.
 */
@RunWith(PaxExam.class)
public class RuntimeBundlesIT extends OsgiTestSupport {
    /** Every Ortex bundle and the libraries they need are active; the EP bundles register described factories. */
    @Test
    public void everyBundleResolvesAndStarts() throws Exception {
        for (String bsn : List.of("io.ortex.api", "io.ortex.onnx", "io.ortex.runtime", "io.ortex.shell", CPU_BUNDLE,
                EXAMPLE_BUNDLE, "com.google.protobuf", "com.fasterxml.jackson.core.jackson-core",
                "org.apache.felix.scr",
                "org.apache.felix.configadmin")) {
            Bundle b = installed(bsn);
            assertNotNull(bsn + " is installed", b);
            assertEquals(bsn + " is active", Bundle.ACTIVE, b.getState());
        }
        assertNotNull(environment());
        Collection<ServiceReference<EpFactory>> refs = context.getServiceReferences(EpFactory.class, null);
        assertEquals(2, refs.size());
        for (ServiceReference<EpFactory> r : refs) {
            String bsn = r.getBundle().getSymbolicName();
            assertEquals(bsn.equals(CPU_BUNDLE) ? CPU_EP : EXAMPLE_EP, r.getProperty("ep.name"));
            assertNotNull(r.getProperty("ep.vendor"));
            assertEquals(bsn.equals(CPU_BUNDLE) ? "CPU" : "NPU", r.getProperty("ep.device_types"));
            assertEquals("EP bundles export nothing", null, r.getBundle().getHeaders().get("Export-Package"));
        }
    }

    /** The CPU EP offers the CPU; the example EP offers its virtual NPU only while its bundle is granted. */
    @Test
    public void virtualDevicesFollowTheConfiguredGrantLive() throws Exception {
        Environment env = environment();
        assertFalse(devicesOf(env, CPU_EP).isEmpty());
        assertEquals(HardwareDeviceType.CPU, devicesOf(env, CPU_EP).get(0).device().type());
        assertTrue("no grant, no virtual NPU", devicesOf(env, EXAMPLE_EP).isEmpty());

        List<String> events = new CopyOnWriteArrayList<>();
        EpDeviceListener listener = new EpDeviceListener() {
            @Override
            public void added(String library, List<EpDevice> devices) {
                events.add("added " + library + " " + devices.size());
            }

            @Override
            public void removed(String library, List<EpDevice> devices) {
                events.add("removed " + library + " " + devices.size());
            }
        };
        env.addEpDeviceListener(listener);
        try {
            configure("virtual.grants", new String[] {EXAMPLE_BUNDLE});
            await(10_000, "the grant shows the virtual NPU", () -> devicesOf(env, EXAMPLE_EP).size() == 1);
            EpDevice npu = devicesOf(env, EXAMPLE_EP).get(0);
            assertEquals(HardwareDeviceType.NPU, npu.device().type());
            assertEquals("1", npu.device().metadata().get("is_virtual"));
            await(5_000, "listeners hear of it", () -> events.equals(List.of("added " + EXAMPLE_BUNDLE + " 1")));

            configure("virtual.grants", new String[0]);
            await(10_000, "revoking the grant hides it", () -> devicesOf(env, EXAMPLE_EP).isEmpty());
            await(5_000, "listeners hear of it", () -> events.equals(List.of("added " + EXAMPLE_BUNDLE + " 1",
                    "removed " + EXAMPLE_BUNDLE + " 1")));

            configure("allow_virtual_devices", "true");
            await(10_000, "allow_virtual_devices grants every bundle", () -> devicesOf(env, EXAMPLE_EP).size() == 1);
            assertFalse("the CPU EP offers no virtual device", devicesOf(env, CPU_EP).stream()
                    .anyMatch(d -> "1".equals(d.device().metadata().get("is_virtual"))));
        } finally {
            env.removeEpDeviceListener(listener);
        }
    }

    /** A model runs through the service on the CPU EP, and on the example EP under the configured default policy. */
    @Test
    public void modelRunsThroughTheEnvironmentService() throws Exception {
        Environment env = environment();
        try (Session s = env.createSession(TinyModel.bytes(), new SessionOptions())) {
            assertEquals(List.of(CPU_EP), s.executionProviders());
            runAndCheck(s, 1);
        }
        configure("virtual.grants", EXAMPLE_BUNDLE, "default.policy", "PREFER_NPU");
        await(10_000, "the virtual NPU is offered", () -> devicesOf(env, EXAMPLE_EP).size() == 1);
        SessionOptions plain = new SessionOptions();
        try (Session s = env.createSession(TinyModel.bytes(), plain)) {
            assertEquals("the default policy applies", List.of(EXAMPLE_EP, CPU_EP), s.executionProviders());
            assertTrue(s.assignment().stream().allMatch(a -> a.ep().equals(EXAMPLE_EP)));
            runAndCheck(s, 2);
            runAndCheck(s, 3);
        }
        assertEquals("the caller's options are not changed", null, plain.selectionPolicy());
        try (Session s = env.createSession(TinyModel.bytes(),
                new SessionOptions().selectionPolicy(ExecutionProviderDevicePolicy.PREFER_CPU))) {
            assertEquals("an explicit policy wins", List.of(CPU_EP), s.executionProviders());
            runAndCheck(s, 4);
        }
    }
}
