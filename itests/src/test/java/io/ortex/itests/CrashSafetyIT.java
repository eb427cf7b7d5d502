package io.ortex.itests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import io.ortex.onnx.proto.Onnx;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code ortex compile} killed with SIGKILL at random points, twenty times: each time the output folder holds either
 * no output file or a complete compiled model with its context binary, never a half-written one; the temporary files
 * a killed compile leaves are hidden, and the next compile (with error-if-output-exists) succeeds, removes them, and
 * writes a model that runs. The compile cross-compiles an MLP with 8 MB of weights for the example EP's virtual NPU,
 * so that writing takes a noticeable share of its time. The kill points are seeded, so a failure repeats.
 */
class CrashSafetyIT {
    private static final Path DIST = Path.of(System.getProperty("ortex.dist", "../assembly/target/ortex"));
    private static final int KILLS = Integer.getInteger("ortex.crash.kills", 20);

    @TempDir
    Path dir;

    private List<String> command(Path model, Path out, String... more) throws IOException {
        Path example;
        try (Stream<Path> jars = Files.list(DIST.resolve("examples"))) {
            example = jars.filter(p -> p.getFileName().toString().startsWith("io.ortex.ep.example")).findFirst()
                    .orElseThrow();
        }
        List<String> cmd = new ArrayList<>(List.of(DIST.resolve("bin/ortex").toString(), "compile", model.toString(),
                "-o", out.toString(), "--register", "npu.virtual=" + example, "--policy", "PREFER_NPU"));
        cmd.addAll(List.of(more));
        return cmd;
    }

    private static Process start(List<String> cmd) throws IOException {
        ProcessBuilder pb = new ProcessBuilder(cmd);
        pb.environment().put("JAVA_HOME", System.getProperty("java.home"));
        pb.environment().put("ORTEX_MODULE_PATH", "1");
        pb.redirectErrorStream(true);
        pb.redirectOutput(ProcessBuilder.Redirect.DISCARD);
        Process p = pb.start();
        p.getOutputStream().close();
        return p;
    }

    /** Waits until a hidden temporary file not in {@code before} appears in a folder, or the process ends. */
    private void awaitNewTemporary(Path folder, List<String> before, Process p, long limitMillis) throws Exception {
        long deadline = System.nanoTime() + limitMillis * 1_000_000;
        while (System.nanoTime() < deadline && p.isAlive()) {
            for (String f : files(folder)) {
                if (f.startsWith(".") && f.endsWith(".tmp") && !before.contains(f)) {
                    return;
                }
            }
            Thread.onSpinWait();
        }
    }

    private List<String> files(Path folder) throws IOException {
        try (Stream<Path> s = Files.list(folder)) {
            return s.map(p -> p.getFileName().toString()).sorted().toList();
        }
    }

    @Test
    void aKilledCompileLeavesNothingThatTripsTheNextOne() throws Exception {
        Path model = Files.write(dir.resolve("mlp.onnx"), mlp(1024, 1024, 1024).toByteArray());
        Path outDir = Files.createDirectories(dir.resolve("out"));
        Path out = outDir.resolve("mlp_ctx.onnx");
        long t0 = System.nanoTime();
        Process whole = start(command(model, out));
        assertTrue(whole.waitFor(120, TimeUnit.SECONDS));
        assertEquals(0, whole.exitValue(), "an uninterrupted compile succeeds");
        long fullMillis = (System.nanoTime() - t0) / 1_000_000;
        assertEquals(List.of("mlp_ctx.onnx", "mlp_ctx_ExampleExecutionProvider.bin"), files(outDir));

        Random random = new Random(20261123);
        int complete = 0;
        int staged = 0;
        for (int i = 0; i < KILLS; i++) {
            for (String f : files(outDir)) {
                if (!f.startsWith(".")) {
                    Files.delete(outDir.resolve(f));
                }
            }
            List<String> before = files(outDir);
            Process p = start(command(model, out));
            if (i % 2 == 0) {
                // the second half of a compile's time holds the compilation and the writing
                Thread.sleep((long) (fullMillis * (0.25 + 0.7 * random.nextDouble())));
            } else {
                // the writing itself is a few milliseconds: wait for a new temporary file, then kill at once
                awaitNewTemporary(outDir, before, p, 2 * fullMillis + 10_000);
            }
            p.destroyForcibly();
            assertTrue(p.waitFor(30, TimeUnit.SECONDS));
            List<String> left = files(outDir).stream().filter(f -> !f.startsWith(".")).toList();
            if (!left.isEmpty()) {
                assertEquals(List.of("mlp_ctx.onnx", "mlp_ctx_ExampleExecutionProvider.bin"), left,
                        "kill " + i + ": the output is all there or not there at all");
                assertTrue(isCompiledModel(out), "kill " + i + ": a model in place is complete");
                complete++;
            }
            List<String> hidden = files(outDir).stream().filter(f -> f.startsWith(".")).toList();
            for (String f : hidden) {
                assertTrue(f.endsWith(".tmp"), "kill " + i + ": only hidden .tmp files: " + f);
            }
            staged += hidden.stream().anyMatch(f -> !before.contains(f)) ? 1 : 0;
        }
        System.out.println("CrashSafetyIT: " + KILLS + " kills in a " + fullMillis + " ms compile: " + complete
                + " after the output was complete, " + (KILLS - complete) + " before (" + staged
                + " while writing temporary files)");

        Path again = outDir.resolve("mlp_ctx.onnx");
        for (String f : files(outDir)) {
            if (!f.startsWith(".")) {
                Files.delete(outDir.resolve(f));
            }
        }
        Process next = start(command(model, again, "--flags", "error-if-output-exists"));
        assertTrue(next.waitFor(120, TimeUnit.SECONDS));
        assertEquals(0, next.exitValue(), "the next compile is not tripped by what the killed ones left");
        assertEquals(List.of("mlp_ctx.onnx", "mlp_ctx_ExampleExecutionProvider.bin"), files(outDir),
                "and the temporary files of the killed compiles are gone");
        List<String> run = new ArrayList<>(command(model, again));
        run.set(1, "run");
        run.set(2, again.toString());
        run.remove(3);
        run.remove(3);
        Process ran = start(run);
        assertTrue(ran.waitFor(120, TimeUnit.SECONDS));
        assertEquals(0, ran.exitValue(), "the compiled model runs");
    }

    /** Tells whether a file is a whole compiled model: it parses and its EPContext node names a binary present. */
    private static boolean isCompiledModel(Path file) throws IOException {
        Onnx.ModelProto m;
        try {
            m = Onnx.ModelProto.parseFrom(Files.readAllBytes(file));
        } catch (com.google.protobuf.InvalidProtocolBufferException e) {
            return false;
        }
        for (Onnx.NodeProto n : m.getGraph().getNodeList()) {
            if (n.getOpType().equals("EPContext")) {
                for (Onnx.AttributeProto a : n.getAttributeList()) {
                    if (a.getName().equals("ep_cache_context")) {
                        Path binary = file.resolveSibling(a.getS().toStringUtf8());
                        return Files.isRegularFile(binary) && Files.size(binary) > 8_000_000;
                    }
                }
            }
        }
        return false;
    }

    /** {@code y = Relu(x W1 + b1) W2 + b2} with {@code x: float[1, in]} and seeded weights. */
    static Onnx.ModelProto mlp(int in, int hidden, int out) {
        Random r = new Random(7);
        Onnx.GraphProto graph = Onnx.GraphProto.newBuilder().setName("mlp")
                .addInput(value("x", 1, in))
                .addInitializer(weights("w1", r, in, hidden))
                .addInitializer(weights("b1", r, hidden))
                .addInitializer(weights("w2", r, hidden, out))
                .addInitializer(weights("b2", r, out))
                .addNode(node("MatMul", "mm1", "x", "w1", "h0"))
                .addNode(node("Add", "add1", "h0", "b1", "h1"))
                .addNode(Onnx.NodeProto.newBuilder().setOpType("Relu").setName("relu").addInput("h1").addOutput("h2"))
                .addNode(node("MatMul", "mm2", "h2", "w2", "y0"))
                .addNode(node("Add", "add2", "y0", "b2", "y"))
                .addOutput(value("y", 1, out))
                .build();
        return Onnx.ModelProto.newBuilder().setIrVersion(8).setGraph(graph)
                .addOpsetImport(Onnx.OperatorSetIdProto.newBuilder().setVersion(17)).build();
    }

    private static Onnx.NodeProto node(String op, String name, String a, String b, String out) {
        return Onnx.NodeProto.newBuilder().setOpType(op).setName(name).addInput(a).addInput(b).addOutput(out).build();
    }

    private static Onnx.TensorProto weights(String name, Random r, long... dims) {
        int n = 1;
        for (long d : dims) {
            n *= (int) d;
        }
        ByteBuffer b = ByteBuffer.allocate(n * 4).order(ByteOrder.LITTLE_ENDIAN);
        for (int i = 0; i < n; i++) {
            b.putFloat((r.nextFloat() - 0.5f) * 0.1f);
        }
        Onnx.TensorProto.Builder t = Onnx.TensorProto.newBuilder().setName(name).setDataType(1)
                .setRawData(ByteString.copyFrom(b.array()));
        for (long d : dims) {
            t.addDims(d);
        }
        return t.build();
    }

    private static Onnx.ValueInfoProto value(String name, long... dims) {
        Onnx.TensorShapeProto.Builder shape = Onnx.TensorShapeProto.newBuilder();
        for (long d : dims) {
            shape.addDim(Onnx.TensorShapeProto.Dimension.newBuilder().setDimValue(d));
        }
        return Onnx.ValueInfoProto.newBuilder().setName(name).setType(Onnx.TypeProto.newBuilder()
                .setTensorType(Onnx.TypeProto.Tensor.newBuilder().setElemType(1).setShape(shape))).build();
    }
}
