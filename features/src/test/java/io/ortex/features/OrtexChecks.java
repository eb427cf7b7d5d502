package io.ortex.features;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import io.ortex.api.EpDevice;
import io.ortex.api.Environment;
import io.ortex.api.ExecutionProviderDevicePolicy;
import io.ortex.api.HardwareDeviceType;
import io.ortex.api.Session;
import io.ortex.api.SessionOptions;
import io.ortex.api.Tensor;
import java.util.List;
import java.util.Map;
import org.osgi.framework.BundleContext;
import org.osgi.util.tracker.ServiceTracker;

/**
 * The checks of {@link KarafFeaturesIT} that use Ortex classes, kept out of the test class so that the probe loads
 * them only once the features that export them are installed.
 */
final class OrtexChecks {
    private static final String CPU_EP = "CPUExecutionProvider";
    private static final String EXAMPLE_EP = "ExampleExecutionProvider";
    private static final String ORT_EP = "OrtExecutionProvider";
    private static final float[] X = {1, -2, 3, -4, 5, -6};
    private static final float[] Y = {0.5f, 1, -4, 2, 0, 7};

    private OrtexChecks() {
    }

    /** Gets the Environment service, checks its one CPU EP device and runs the model on it. */
    static void runOnTheCpuEp(BundleContext context) throws InterruptedException {
        Environment env = environment(context);
        List<EpDevice> cpu = devicesOf(env, CPU_EP);
        assertEquals(env.epDevices().toString(), 1, cpu.size());
        assertEquals(HardwareDeviceType.CPU, cpu.get(0).device().type());
        try (Session s = env.createSession(TinyOnnx.bytes(), new SessionOptions())) {
            assertEquals(List.of(CPU_EP), s.executionProviders());
            runAndCheck(s);
        }
    }

    /** Waits for the example EP's virtual NPU, checks it, and runs the model on it with a prefer-NPU policy. */
    static void runOnTheExampleNpu(BundleContext context) throws InterruptedException {
        Environment env = environment(context);
        long end = System.currentTimeMillis() + 10_000;
        while (devicesOf(env, EXAMPLE_EP).isEmpty()) {
            if (System.currentTimeMillis() > end) {
                fail("the example EP offers no device 10 s after its feature was installed: " + env.epDevices());
            }
            Thread.sleep(20);
        }
        List<EpDevice> npu = devicesOf(env, EXAMPLE_EP);
        assertEquals(npu.toString(), 1, npu.size());
        assertEquals(HardwareDeviceType.NPU, npu.get(0).device().type());
        assertEquals("1", npu.get(0).device().metadata().get("is_virtual"));
        assertEquals(2, env.epDevices().size());
        try (Session s = env.createSession(TinyOnnx.bytes(),
                new SessionOptions().selectionPolicy(ExecutionProviderDevicePolicy.PREFER_NPU))) {
            assertEquals(List.of(EXAMPLE_EP, CPU_EP), s.executionProviders());
            assertTrue(s.assignment().toString(), s.assignment().stream().allMatch(a -> a.ep().equals(EXAMPLE_EP)));
            runAndCheck(s);
        }
    }

    /** Waits for the ONNX Runtime EP's device and runs the model on it alone. */
    static void runOnTheOrtEp(BundleContext context) throws InterruptedException {
        Environment env = environment(context);
        long end = System.currentTimeMillis() + 20_000;
        while (devicesOf(env, ORT_EP).isEmpty()) {
            if (System.currentTimeMillis() > end) {
                fail("the ONNX Runtime EP offers no device 20 s after its feature was installed: " + env.epDevices());
            }
            Thread.sleep(20);
        }
        List<EpDevice> ort = devicesOf(env, ORT_EP);
        assertEquals(HardwareDeviceType.CPU, ort.get(0).device().type());
        try (Session s = env.createSession(TinyOnnx.bytes(),
                new SessionOptions().appendExecutionProvider(ort, Map.of()))) {
            assertTrue(s.assignment().toString(), s.assignment().stream().allMatch(a -> a.ep().equals(ORT_EP)));
            runAndCheck(s);
        }
    }

    private static void runAndCheck(Session s) {
        Map<String, Tensor> out = s.run(Map.of("x", Tensor.ofFloats(X, TinyOnnx.SHAPE),
                "y", Tensor.ofFloats(Y, TinyOnnx.SHAPE)));
        assertArrayEquals(TinyOnnx.expected(X, Y), out.get("out").floats(), 0f);
    }

    private static Environment environment(BundleContext context) throws InterruptedException {
        ServiceTracker<Environment, Environment> t = new ServiceTracker<>(context, Environment.class, null);
        t.open();
        try {
            Environment env = t.waitForService(10_000);
            if (env == null) {
                fail("no Environment service within 10 s of installing feature ortex");
            }
            return env;
        } finally {
            t.close();
        }
    }

    private static List<EpDevice> devicesOf(Environment env, String ep) {
        return env.epDevices().stream().filter(d -> d.epName().equals(ep)).toList();
    }
}
