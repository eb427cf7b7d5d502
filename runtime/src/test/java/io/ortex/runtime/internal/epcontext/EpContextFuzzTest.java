package io.ortex.runtime.internal.epcontext;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import com.google.protobuf.ByteString;
import io.ortex.api.OrtexException;
import io.ortex.api.ResourceLimits;
import io.ortex.api.spi.EpContextNode;
import io.ortex.api.spi.SharedBlob;
import io.ortex.onnx.ModelReader;
import io.ortex.onnx.Node;
import io.ortex.onnx.OnnxModel;
import io.ortex.onnx.proto.Onnx.AttributeProto;
import io.ortex.onnx.proto.Onnx.GraphProto;
import io.ortex.onnx.proto.Onnx.ModelProto;
import io.ortex.onnx.proto.Onnx.NodeProto;
import io.ortex.onnx.proto.Onnx.OperatorSetIdProto;
import io.ortex.onnx.proto.Onnx.TypeProto;
import io.ortex.onnx.proto.Onnx.ValueInfoProto;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Fuzzes EPContext resolution: one or two EPContext nodes whose attributes (names, types and values) come from the
 * fuzzer, in a model whose folder holds a context binary, a shared context binary, a file of junk, a subfolder and a
 * symbolic link to a folder outside that holds a valid context binary. Reading each node must give its payload or
 * Ortex's own exception with a message, and never the payload of the binary outside the folder.
 */
class EpContextFuzzTest {
    private static final byte[] OUTSIDE_PAYLOAD = "payload outside the model's folder".getBytes(StandardCharsets.UTF_8);
    private static final String[] ATTRIBUTES = {EpContextNode.MAIN_CONTEXT, EpContextNode.EP_CACHE_CONTEXT,
        EpContextNode.EMBED_MODE, EpContextNode.EP_SDK_VERSION, EpContextNode.PARTITION_NAME, EpContextNode.SOURCE,
        EpContextNode.HARDWARE_ARCHITECTURE, EpContextNode.NOTES, EpContextNode.CONTEXT_KEY,
        EpContextNode.SHARED_CONTEXT, EpContextNode.SHARED_BLOBS};
    private static final String SHARED_KEY = SharedBlob.keyOf("blob".getBytes(StandardCharsets.UTF_8));
    private static final String[] VALUES = {"ctx.bin", "shared.bin", "junk.bin", "sub/ctx.bin", "out/ctx.bin",
        "../outside/ctx.bin", "/etc/passwd", "p0", "p1", "EP", SHARED_KEY, "", "."};
    private static final Path FOLDER = folder();

    private static Path folder() {
        try {
            Path root = Files.createTempDirectory("ortex-fuzz-epcontext");
            Path dir = Files.createDirectories(root.resolve("model"));
            Path outside = Files.createDirectories(root.resolve("outside"));
            ContextBinaryFile.write(outside.resolve("ctx.bin"), Map.of("p0", OUTSIDE_PAYLOAD));
            Files.createSymbolicLink(dir.resolve("out"), outside);
            Map<String, byte[]> payloads = new LinkedHashMap<>();
            payloads.put("p0", new byte[] {1, 2, 3});
            payloads.put("p1", new byte[0]);
            ContextBinaryFile.write(dir.resolve("ctx.bin"), payloads);
            Files.createDirectories(dir.resolve("sub"));
            ContextBinaryFile.write(dir.resolve("sub/ctx.bin"), Map.of("p0", new byte[] {4}));
            SharedContextFile.write(dir.resolve("shared.bin"), Map.of(SHARED_KEY,
                    "blob".getBytes(StandardCharsets.UTF_8)));
            Files.write(dir.resolve("junk.bin"), new byte[] {0x4f, 0x58, 0x43, 0x42, 1, 0, 0, 0, 9});
            return dir.toRealPath();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @FuzzTest(maxDuration = "5m")
    void resolveEpContext(FuzzedDataProvider data) {
        GraphProto.Builder g = GraphProto.newBuilder().setName("g")
                .addInput(ValueInfoProto.newBuilder().setName("x").setType(floats()))
                .addOutput(ValueInfoProto.newBuilder().setName("y").setType(floats()));
        int nodes = data.consumeInt(1, 2);
        for (int i = 0; i < nodes; i++) {
            NodeProto.Builder n = NodeProto.newBuilder().setOpType(EpContextNode.OP_TYPE)
                    .setDomain(EpContextNode.DOMAIN).setName(data.consumeString(12))
                    .addInput(i == 0 ? "x" : "m").addOutput(i == nodes - 1 ? "y" : "m");
            int attributes = data.consumeInt(0, 8);
            for (int a = 0; a < attributes; a++) {
                n.addAttribute(attribute(data));
            }
            g.addNode(n);
        }
        ModelProto model = ModelProto.newBuilder().setIrVersion(8)
                .addOpsetImport(OperatorSetIdProto.newBuilder().setVersion(17))
                .addOpsetImport(OperatorSetIdProto.newBuilder().setDomain(EpContextNode.DOMAIN).setVersion(1))
                .setGraph(g).build();
        try {
            OnnxModel m = ModelReader.read(model.toByteArray(), FOLDER, ResourceLimits.DEFAULTS);
            for (Node n : m.graph().nodeList()) {
                EpContextNode read = EpContextReader.read(n, FOLDER);
                if (Arrays.equals(read.payload(), OUTSIDE_PAYLOAD)) {
                    throw new AssertionError("EPContext node read a context binary outside the model's folder");
                }
            }
        } catch (OrtexException e) {
            String message = e.getMessage();
            if (message == null || message.isBlank() || message.chars().anyMatch(c -> c < 0x20)) {
                throw new AssertionError("an exception without a one-line message: " + message, e);
            }
        }
    }

    private static TypeProto floats() {
        return TypeProto.newBuilder().setTensorType(TypeProto.Tensor.newBuilder().setElemType(1)).build();
    }

    private static AttributeProto attribute(FuzzedDataProvider data) {
        AttributeProto.Builder a = AttributeProto.newBuilder().setName(data.pickValue(ATTRIBUTES));
        switch (data.consumeInt(0, 3)) {
            case 0 -> a.setType(AttributeProto.AttributeType.INT).setI(data.consumeLong(-2, 3));
            case 1 -> a.setType(AttributeProto.AttributeType.STRING).setS(ByteString.copyFromUtf8(value(data)));
            case 2 -> {
                a.setType(AttributeProto.AttributeType.STRINGS);
                int n = data.consumeInt(0, 3);
                for (int i = 0; i < n; i++) {
                    a.addStrings(ByteString.copyFromUtf8(value(data)));
                }
            }
            default -> a.setType(AttributeProto.AttributeType.STRING).setS(ByteString.copyFrom(
                    data.consumeBytes(64)));
        }
        return a.build();
    }

    private static String value(FuzzedDataProvider data) {
        return data.consumeBoolean() ? data.pickValue(VALUES) : data.consumeString(40);
    }
}
