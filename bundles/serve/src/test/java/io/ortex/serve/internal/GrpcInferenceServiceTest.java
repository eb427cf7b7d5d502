package io.ortex.serve.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import inference.GRPCInferenceServiceGrpc;
import inference.GRPCInferenceServiceGrpc.GRPCInferenceServiceBlockingStub;
import inference.GrpcPredictV2.InferTensorContents;
import inference.GrpcPredictV2.ModelInferRequest;
import inference.GrpcPredictV2.ModelInferRequest.InferInputTensor;
import inference.GrpcPredictV2.ModelInferResponse;
import inference.GrpcPredictV2.ModelMetadataRequest;
import inference.GrpcPredictV2.ModelMetadataResponse;
import inference.GrpcPredictV2.ModelReadyRequest;
import inference.GrpcPredictV2.ServerLiveRequest;
import inference.GrpcPredictV2.ServerMetadataRequest;
import inference.GrpcPredictV2.ServerMetadataResponse;
import inference.GrpcPredictV2.ServerReadyRequest;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.ortex.api.ElementType;
import io.ortex.api.Environment;
import io.ortex.api.HalfFloats;
import io.ortex.testing.ModelBuilder;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The gRPC service through grpc-java's generated client stub, over a real loopback connection, on a real repository
 * of tiny models run by the runtime and the CPU EP.
 */
class GrpcInferenceServiceTest {
    /** The message limit the server is started with. */
    private static final int MAX_MESSAGE = 1 << 20;

    @TempDir
    Path models;

    private Environment environment;
    private ModelRepository repository;
    private Metrics metrics;
    private GrpcServer server;
    private ManagedChannel channel;
    private GRPCInferenceServiceBlockingStub stub;

    @BeforeEach
    void start() throws IOException {
        // calc: y = a + b, both [N, 3] FP32
        new ModelBuilder().opset(17)
                .input("a", ElementType.FLOAT, -1, 3).input("b", ElementType.FLOAT, -1, 3)
                .output("y", ElementType.FLOAT, -1, 3)
                .node("Add", "add", List.of("a", "b"), List.of("y"))
                .write(models.resolve("calc/1/model.onnx"));
        // types: each input comes back as the output of the same type
        ModelBuilder types = new ModelBuilder().opset(17);
        for (ElementType t : List.of(ElementType.INT8, ElementType.UINT16, ElementType.UINT64, ElementType.STRING,
                ElementType.BOOL)) {
            String n = t.name().toLowerCase(java.util.Locale.ROOT);
            types.input("in_" + n, t, -1).output("out_" + n, t, -1)
                    .node("Identity", "id_" + n, List.of("in_" + n), List.of("out_" + n));
        }
        types.write(models.resolve("types/1/model.onnx"));
        new ModelBuilder().opset(17)
                .input("h", ElementType.FLOAT16, -1).output("g", ElementType.FLOAT16, -1)
                .node("Identity", "id", List.of("h"), List.of("g"))
                .write(models.resolve("half/1/model.onnx"));
        environment = Environment.create();
        repository = new ModelRepository(environment, models);
        repository.scan();
        metrics = new Metrics();
        InferenceCore core = new InferenceCore(repository, metrics, "0.1.0");
        server = GrpcServer.start("127.0.0.1", 0, MAX_MESSAGE, new GrpcInferenceService(core,
                new GrpcInferRequestDecoder(1 << 16)));
        channel = NettyChannelBuilder.forAddress("127.0.0.1", server.port()).usePlaintext().build();
        stub = GRPCInferenceServiceGrpc.newBlockingStub(channel).withDeadlineAfter(60, TimeUnit.SECONDS);
    }

    @AfterEach
    void stop() throws InterruptedException {
        channel.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
        server.close();
        repository.close();
        environment.close();
    }

    private static InferInputTensor.Builder input(String name, String datatype, long... shape) {
        InferInputTensor.Builder b = InferInputTensor.newBuilder().setName(name).setDatatype(datatype);
        for (long d : shape) {
            b.addShape(d);
        }
        return b;
    }

    private static InferTensorContents fp32(float... values) {
        InferTensorContents.Builder c = InferTensorContents.newBuilder();
        for (float v : values) {
            c.addFp32Contents(v);
        }
        return c.build();
    }

    private static ByteString rawFloats(float... values) {
        ByteBuffer b = ByteBuffer.allocate(values.length * 4).order(ByteOrder.LITTLE_ENDIAN);
        b.asFloatBuffer().put(values);
        return ByteString.copyFrom(b.array());
    }

    private static ModelInferRequest calcRequest() {
        return ModelInferRequest.newBuilder().setModelName("calc").setId("q")
                .addInputs(input("a", "FP32", 2, 3).setContents(fp32(1, 2, 3, 4, 5, 6)))
                .addInputs(input("b", "FP32", 2, 3).setContents(fp32(0.5f, 0.5f, 0.5f, 1, 1, 1)))
                .build();
    }

    /** Sends a request that must fail, and checks the status and that the message names the fault. */
    private StatusRuntimeException refused(Status.Code code, ModelInferRequest request, String message) {
        StatusRuntimeException e = assertThrows(StatusRuntimeException.class, () -> stub.modelInfer(request));
        assertEquals(code, e.getStatus().getCode(), String.valueOf(e.getStatus()));
        String description = String.valueOf(e.getStatus().getDescription());
        assertTrue(description.contains(message), description);
        assertFalse(description.contains("Exception") || description.contains("\tat "), description);
        return e;
    }

    @Test
    void answersHealthAndMetadata() {
        assertTrue(stub.serverLive(ServerLiveRequest.getDefaultInstance()).getLive());
        assertTrue(stub.serverReady(ServerReadyRequest.getDefaultInstance()).getReady());
        ServerMetadataResponse server = stub.serverMetadata(ServerMetadataRequest.getDefaultInstance());
        assertEquals("ortex", server.getName());
        assertEquals("0.1.0", server.getVersion());
        assertEquals(List.of("binary_tensor_data", "model_repository"), server.getExtensionsList());

        ModelMetadataResponse calc = stub.modelMetadata(ModelMetadataRequest.newBuilder().setName("calc").build());
        assertEquals("calc", calc.getName());
        assertEquals(List.of("1"), calc.getVersionsList());
        assertEquals("onnx", calc.getPlatform());
        assertEquals(List.of("a", "b"), calc.getInputsList().stream().map(t -> t.getName()).toList());
        assertEquals("FP32", calc.getInputs(0).getDatatype());
        assertEquals(List.of(-1L, 3L), calc.getInputs(0).getShapeList());
        assertEquals("y", calc.getOutputs(0).getName());

        assertTrue(stub.modelReady(ModelReadyRequest.newBuilder().setName("calc").build()).getReady());
        assertTrue(stub.modelReady(ModelReadyRequest.newBuilder().setName("calc").setVersion("1").build()).getReady());
        assertFalse(stub.modelReady(ModelReadyRequest.newBuilder().setName("calc").setVersion("2").build())
                .getReady());
        assertFalse(stub.modelReady(ModelReadyRequest.newBuilder().setName("nope").build()).getReady());
        StatusRuntimeException bad = assertThrows(StatusRuntimeException.class,
                () -> stub.modelReady(ModelReadyRequest.newBuilder().setName("../calc").build()));
        assertEquals(Status.Code.INVALID_ARGUMENT, bad.getStatus().getCode());
        StatusRuntimeException missing = assertThrows(StatusRuntimeException.class,
                () -> stub.modelMetadata(ModelMetadataRequest.newBuilder().setName("nope").build()));
        assertEquals(Status.Code.NOT_FOUND, missing.getStatus().getCode());
        assertTrue(missing.getStatus().getDescription().contains("'nope'"), missing.getStatus().getDescription());
    }

    @Test
    void infersFromTypedAndFromRawContents() {
        ModelInferResponse typed = stub.modelInfer(calcRequest());
        assertEquals("calc", typed.getModelName());
        assertEquals("1", typed.getModelVersion());
        assertEquals("q", typed.getId());
        assertEquals(0, typed.getRawOutputContentsCount());
        assertEquals("y", typed.getOutputs(0).getName());
        assertEquals("FP32", typed.getOutputs(0).getDatatype());
        assertEquals(List.of(2L, 3L), typed.getOutputs(0).getShapeList());
        assertEquals(List.of(1.5f, 2.5f, 3.5f, 5f, 6f, 7f), typed.getOutputs(0).getContents().getFp32ContentsList());

        ModelInferResponse raw = stub.modelInfer(ModelInferRequest.newBuilder().setModelName("calc")
                .setModelVersion("1")
                .addInputs(input("a", "FP32", 1, 3)).addInputs(input("b", "FP32", 1, 3))
                .addRawInputContents(rawFloats(1, 2, 3)).addRawInputContents(rawFloats(10, 20, 30))
                .addOutputs(ModelInferRequest.InferRequestedOutputTensor.newBuilder().setName("y"))
                .build());
        assertEquals("", raw.getId());
        assertFalse(raw.getOutputs(0).hasContents());
        assertEquals(rawFloats(11, 22, 33), raw.getRawOutputContents(0));

        String text = metrics.prometheusText();
        assertTrue(text.contains("ortex_inference_requests_total{model=\"calc\",version=\"1\"} 2\n"), text);
        assertTrue(text.contains("ortex_inference_failures_total{model=\"calc\",version=\"1\"} 0\n"), text);
    }

    @Test
    void carriesEveryTypedFieldAndRawHalfFloats() {
        ModelInferRequest request = ModelInferRequest.newBuilder().setModelName("types")
                .addInputs(input("in_int8", "INT8", 3).setContents(InferTensorContents.newBuilder()
                        .addIntContents(-128).addIntContents(0).addIntContents(127)))
                .addInputs(input("in_uint16", "UINT16", 2).setContents(InferTensorContents.newBuilder()
                        .addUintContents(0).addUintContents(65535)))
                .addInputs(input("in_uint64", "UINT64", 1).setContents(InferTensorContents.newBuilder()
                        .addUint64Contents(-1L)))
                .addInputs(input("in_string", "BYTES", 2).setContents(InferTensorContents.newBuilder()
                        .addBytesContents(ByteString.copyFromUtf8("héllo")).addBytesContents(ByteString.EMPTY)))
                .addInputs(input("in_bool", "BOOL", 2).setContents(InferTensorContents.newBuilder()
                        .addBoolContents(true).addBoolContents(false)))
                .build();
        ModelInferResponse r = stub.modelInfer(request);
        assertEquals(5, r.getOutputsCount());
        assertEquals("INT8", r.getOutputs(0).getDatatype());
        assertEquals(List.of(-128, 0, 127), r.getOutputs(0).getContents().getIntContentsList());
        assertEquals(List.of(0, 65535), r.getOutputs(1).getContents().getUintContentsList());
        assertEquals(List.of(-1L), r.getOutputs(2).getContents().getUint64ContentsList());
        assertEquals("BYTES", r.getOutputs(3).getDatatype());
        assertEquals(List.of(ByteString.copyFromUtf8("héllo"), ByteString.EMPTY),
                r.getOutputs(3).getContents().getBytesContentsList());
        assertEquals(List.of(true, false), r.getOutputs(4).getContents().getBoolContentsList());

        // FP16 has no typed field: it comes raw and goes back raw
        ByteBuffer half = ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN);
        half.putShort(HalfFloats.floatToFloat16(1.5f)).putShort(HalfFloats.floatToFloat16(-2f));
        ModelInferResponse h = stub.modelInfer(ModelInferRequest.newBuilder().setModelName("half")
                .addInputs(input("h", "FP16", 2)).addRawInputContents(ByteString.copyFrom(half.array())).build());
        assertEquals("FP16", h.getOutputs(0).getDatatype());
        assertArrayEquals(half.array(), h.getRawOutputContents(0).toByteArray());
        refused(Status.Code.INVALID_ARGUMENT, ModelInferRequest.newBuilder().setModelName("half")
                .addInputs(input("h", "FP16", 1).setContents(fp32(1))).build(),
                "input 'h': FP16 has no typed contents field in the protocol; send it in raw_input_contents");
    }

    @Test
    void refusesHostileRequestsWithAClearStatusAndKeepsServing() {
        // the model's datatype is FP32
        refused(Status.Code.INVALID_ARGUMENT, ModelInferRequest.newBuilder(calcRequest()).setInputs(0,
                input("a", "INT64", 2, 3).setContents(InferTensorContents.newBuilder().addAllInt64Contents(
                        List.of(1L, 2L, 3L, 4L, 5L, 6L)))).build(), "input 'a': datatype INT64, but model 'calc' "
                        + "takes FP32");
        // a datatype that is not one of the protocol's
        refused(Status.Code.INVALID_ARGUMENT, ModelInferRequest.newBuilder(calcRequest()).setInputs(0,
                input("a", "FLOAT32", 2, 3).setContents(fp32(1, 2, 3, 4, 5, 6))).build(),
                "input 'a': unknown datatype 'FLOAT32'");
        // contents in another type's field
        refused(Status.Code.INVALID_ARGUMENT, ModelInferRequest.newBuilder(calcRequest()).setInputs(0,
                input("a", "FP32", 2, 3).setContents(InferTensorContents.newBuilder().addAllInt64Contents(
                        List.of(1L, 2L, 3L, 4L, 5L, 6L)))).build(),
                "input 'a': datatype FP32 takes contents.fp32_contents, but the request has contents.int64_contents");
        // element count
        refused(Status.Code.INVALID_ARGUMENT, ModelInferRequest.newBuilder(calcRequest()).setInputs(0,
                input("a", "FP32", 2, 3).setContents(fp32(1, 2, 3, 4, 5))).build(),
                "input 'a': shape [2,3] takes 6 elements, contents.fp32_contents has 5");
        // a shape the model does not take
        refused(Status.Code.INVALID_ARGUMENT, ModelInferRequest.newBuilder(calcRequest()).setInputs(0,
                input("a", "FP32", 3, 2).setContents(fp32(1, 2, 3, 4, 5, 6))).build(),
                "input 'a': shape [3,2] does not fit the model's [N,3]");
        refused(Status.Code.INVALID_ARGUMENT, ModelInferRequest.newBuilder(calcRequest()).setInputs(0,
                input("a", "FP32", 2, -3).setContents(fp32(1, 2, 3, 4, 5, 6))).build(),
                "input 'a': shape element -3 is not a dimension");
        InferInputTensor.Builder deep = input("a", "FP32").setContents(fp32(1));
        for (int i = 0; i < 100; i++) {
            deep.addShape(1);
        }
        refused(Status.Code.INVALID_ARGUMENT, ModelInferRequest.newBuilder(calcRequest()).setInputs(0, deep).build(),
                "input 'a': shape has 100 dimensions, more than 64");
        refused(Status.Code.INVALID_ARGUMENT, ModelInferRequest.newBuilder(calcRequest())
                .addInputs(input("a\nb", "FP32", 1).setContents(fp32(1))).build(), "model 'calc' has no input 'a\\nb'");
        // raw contents of the wrong length, or not one per input, or beside typed contents
        ModelInferRequest.Builder raw = ModelInferRequest.newBuilder().setModelName("calc")
                .addInputs(input("a", "FP32", 1, 3)).addInputs(input("b", "FP32", 1, 3));
        refused(Status.Code.INVALID_ARGUMENT, raw.clone().addRawInputContents(rawFloats(1, 2, 3))
                .addRawInputContents(rawFloats(1, 2)).build(),
                "input 'b': raw_input_contents size 8 does not fit FP32 of shape [1,3], which takes 12 bytes");
        refused(Status.Code.INVALID_ARGUMENT, raw.clone().addRawInputContents(rawFloats(1, 2, 3)).build(),
                "raw_input_contents has 1 entries for 2 inputs");
        refused(Status.Code.INVALID_ARGUMENT, ModelInferRequest.newBuilder(calcRequest())
                .addRawInputContents(rawFloats(1, 2, 3, 4, 5, 6)).addRawInputContents(rawFloats(1, 2, 3, 4, 5, 6))
                .build(), "input 'a' has contents, but the request has raw_input_contents");
        // integers out of their datatype's range
        refused(Status.Code.INVALID_ARGUMENT, ModelInferRequest.newBuilder().setModelName("types")
                .addInputs(input("in_int8", "INT8", 1).setContents(InferTensorContents.newBuilder()
                        .addIntContents(300))).build(),
                "input 'in_int8': element 0, 300, is out of the range of INT8 (-128 to 127)");
        // inputs and outputs the model does not have, an input given twice, none at all
        refused(Status.Code.INVALID_ARGUMENT, ModelInferRequest.newBuilder(calcRequest())
                .addInputs(input("c", "FP32", 1).setContents(fp32(1))).build(), "model 'calc' has no input 'c'");
        refused(Status.Code.INVALID_ARGUMENT, ModelInferRequest.newBuilder(calcRequest())
                .addOutputs(ModelInferRequest.InferRequestedOutputTensor.newBuilder().setName("z")).build(),
                "model 'calc' has no output 'z'");
        refused(Status.Code.INVALID_ARGUMENT, ModelInferRequest.newBuilder(calcRequest())
                .addInputs(calcRequest().getInputs(0)).build(), "input 'a' is given twice");
        refused(Status.Code.INVALID_ARGUMENT, ModelInferRequest.newBuilder().setModelName("calc").build(),
                "the request has no inputs");
        // unknown models and versions, hostile names
        refused(Status.Code.NOT_FOUND, ModelInferRequest.newBuilder(calcRequest()).setModelName("nope").build(),
                "no model 'nope'");
        refused(Status.Code.NOT_FOUND, ModelInferRequest.newBuilder(calcRequest()).setModelVersion("7").build(),
                "model 'calc' has no version '7' loaded");
        refused(Status.Code.INVALID_ARGUMENT, ModelInferRequest.newBuilder(calcRequest()).setModelName("../calc")
                .build(), "invalid model name '../calc'");
        refused(Status.Code.INVALID_ARGUMENT, ModelInferRequest.newBuilder(calcRequest()).setModelVersion("1\n")
                .build(), "invalid version");
        // over the limits: a shape of too many elements, a message larger than the server takes
        refused(Status.Code.RESOURCE_EXHAUSTED, ModelInferRequest.newBuilder(calcRequest()).setInputs(0,
                input("a", "FP32", 1L << 20, 3).setContents(fp32(1))).build(),
                "input 'a': shape [1048576,3] takes 3145728 elements, more than the limit of 65536");
        StatusRuntimeException big = assertThrows(StatusRuntimeException.class, () -> stub.modelInfer(
                raw.clone().addRawInputContents(ByteString.copyFrom(new byte[MAX_MESSAGE]))
                        .addRawInputContents(rawFloats(1, 2, 3)).build()));
        assertEquals(Status.Code.RESOURCE_EXHAUSTED, big.getStatus().getCode(), String.valueOf(big.getStatus()));

        // the server is still up and right
        assertEquals(List.of(1.5f, 2.5f, 3.5f, 5f, 6f, 7f),
                stub.modelInfer(calcRequest()).getOutputs(0).getContents().getFp32ContentsList());
        assertTrue(metrics.prometheusText().contains("ortex_inference_failures_total{model=\"calc\",version=\"1\"}"));
    }

    @Test
    void aNewVersionTakesOverWithoutFailingACall() throws Exception {
        AtomicBoolean stop = new AtomicBoolean();
        ExecutorService clients = Executors.newFixedThreadPool(4);
        List<Future<List<String>>> results = new ArrayList<>();
        for (int c = 0; c < 4; c++) {
            results.add(clients.submit(() -> {
                List<String> failures = new ArrayList<>();
                for (int i = 0; i < 5000 && !stop.get(); i++) {
                    try {
                        stub.modelInfer(calcRequest());
                    } catch (StatusRuntimeException e) {
                        failures.add(String.valueOf(e.getStatus()));
                    }
                }
                return failures;
            }));
        }
        Thread.sleep(200);
        // version 2 subtracts
        new ModelBuilder().opset(17)
                .input("a", ElementType.FLOAT, -1, 3).input("b", ElementType.FLOAT, -1, 3)
                .output("y", ElementType.FLOAT, -1, 3)
                .node("Sub", "sub", List.of("a", "b"), List.of("y"))
                .write(models.resolve("calc/2/model.onnx"));
        repository.scan();
        Thread.sleep(200);
        stop.set(true);
        clients.shutdown();
        assertTrue(clients.awaitTermination(60, TimeUnit.SECONDS));
        for (Future<List<String>> f : results) {
            assertEquals(List.of(), f.get(), "failed calls");
        }
        ModelInferResponse r = stub.modelInfer(calcRequest());
        assertEquals("2", r.getModelVersion());
        assertEquals(List.of(0.5f, 1.5f, 2.5f, 3f, 4f, 5f), r.getOutputs(0).getContents().getFp32ContentsList());
    }

    @Test
    void aTakenPortIsAnErrorThatNamesIt() {
        IOException e = assertThrows(IOException.class, () -> GrpcServer.start("127.0.0.1", server.port(), MAX_MESSAGE,
                new GrpcInferenceService(new InferenceCore(repository, metrics, "0.1.0"),
                        new GrpcInferRequestDecoder(1))));
        assertTrue(String.valueOf(e.getMessage()).contains(Integer.toString(server.port())), e.getMessage());
        // the running server is not disturbed
        assertTrue(stub.serverLive(ServerLiveRequest.getDefaultInstance()).getLive());
    }

    @Test
    void servesConcurrentCallersGoodAndBad() throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try {
            List<Future<?>> futures = new ArrayList<>();
            for (int t = 0; t < 8; t++) {
                int thread = t;
                futures.add(pool.submit(() -> {
                    for (int i = 0; i < 20; i++) {
                        float x = thread * 100 + i;
                        if ((thread + i) % 3 == 0) {
                            refused(Status.Code.INVALID_ARGUMENT, ModelInferRequest.newBuilder(calcRequest())
                                    .setInputs(1, input("b", "FP32", 2, 3).setContents(fp32(x))).build(),
                                    "input 'b': shape [2,3] takes 6 elements");
                        } else {
                            ModelInferResponse r = stub.modelInfer(ModelInferRequest.newBuilder(calcRequest())
                                    .setInputs(1, input("b", "FP32", 2, 3).setContents(fp32(x, x, x, x, x, x)))
                                    .build());
                            assertEquals(List.of(1 + x, 2 + x, 3 + x, 4 + x, 5 + x, 6 + x),
                                    r.getOutputs(0).getContents().getFp32ContentsList());
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> f : futures) {
                f.get(120, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        String text = metrics.prometheusText();
        assertTrue(text.contains("ortex_inference_requests_total{model=\"calc\",version=\"1\"} 160\n"), text);
    }
}
