package io.ortex.shell;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ortex.api.CompileResult;
import io.ortex.api.Environment;
import io.ortex.api.ExecutionProviderDevicePolicy;
import io.ortex.api.Session;
import io.ortex.api.SessionOptions;
import io.ortex.api.Tensor;
import io.ortex.onnx.TensorComparison;
import io.ortex.testing.RealModels;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * all-MiniLM-L6-v2 compiled for the example EP's virtual NPU (what {@code ortex compile --env
 * allow_virtual_devices=1 --policy PREFER_NPU} does) computes what the source model computes, and so does the same
 * model through the compile cache, cold and warm. The model comes from Maven Central ({@link RealModels}).
 */
class CompiledMiniLmTest {
    @TempDir
    Path dir;

    static Path model() {
        return RealModels.model("all-minilm-l6-v2");
    }

    static Map<String, Tensor> inputs() {
        SplittableRandom random = new SplittableRandom(7);
        int n = 64;
        long[] shape = {1, n};
        long[] ids = new long[n];
        long[] mask = new long[n];
        for (int i = 0; i < n; i++) {
            ids[i] = i == 0 ? 101 : i == n - 1 ? 102 : 1000 + random.nextInt(29000);
            mask[i] = 1;
        }
        Map<String, Tensor> in = new LinkedHashMap<>();
        in.put("input_ids", Tensor.ofLongs(ids, shape));
        in.put("attention_mask", Tensor.ofLongs(mask, shape));
        in.put("token_type_ids", Tensor.ofLongs(new long[n], shape));
        return in;
    }

    static Map<String, Tensor> run(Environment env, Path model, SessionOptions o) {
        try (Session s = env.createSession(model, o)) {
            return s.run(inputs());
        }
    }

    /**
     * The same outputs up to float rounding: the sessions partition and fuse differently (a compiled model's CPU part
     * is not the source's), and the JIT may compile a reduction between runs, so the sums of the 384- and 1536-long
     * reductions round differently: a few ULPs of their largest terms, about 1e-6 on outputs near 0.01. A wrong kernel
     * is off by far more than the tolerance.
     */
    static void assertSameOutputs(Map<String, Tensor> expected, Map<String, Tensor> actual) {
        assertEquals(expected.keySet(), actual.keySet());
        for (Map.Entry<String, Tensor> e : expected.entrySet()) {
            assertArrayEquals(e.getValue().shape(), actual.get(e.getKey()).shape(), e.getKey());
            assertNull(TensorComparison.difference(e.getValue(), actual.get(e.getKey()), 1e-4, 1e-5), e.getKey());
        }
    }

    @Test
    void theCompiledModelAndTheCachedOneGiveTheSourcesOutputs() {
        Path source = model();
        try (Environment env = Environment.create(Map.of(Environment.ALLOW_VIRTUAL_DEVICES, "1"))) {
            SessionOptions npu = new SessionOptions().selectionPolicy(ExecutionProviderDevicePolicy.PREFER_NPU);
            Map<String, Tensor> expected = run(env, source, npu);

            Path compiled = dir.resolve("minilm_ctx.onnx");
            CompileResult r = env.modelCompiler(npu).inputModel(source).compileToFile(compiled);
            assertTrue(r.epContextNodes().getOrDefault("ExampleExecutionProvider", 0) > 0, r.toString());
            try (Session s = env.createSession(compiled, npu)) {
                assertEquals(List.of("ExampleExecutionProvider", "CPUExecutionProvider"), s.executionProviders());
                assertSameOutputs(expected, s.run(inputs()));
            }

            SessionOptions cached = new SessionOptions().selectionPolicy(ExecutionProviderDevicePolicy.PREFER_NPU)
                    .config(SessionOptions.COMPILE_CACHE_DIR, dir.resolve("cache").toString());
            assertSameOutputs(expected, run(env, source, cached));
            assertSameOutputs(expected, run(env, source, cached));
        }
    }
}
