package io.ortex.benchmarks.serving;

import com.google.protobuf.ByteString;
import inference.GRPCInferenceServiceGrpc;
import inference.GrpcPredictV2.ModelInferRequest;
import inference.GrpcPredictV2.ModelInferRequest.InferInputTensor;
import inference.GrpcPredictV2.ModelInferResponse;
import io.grpc.ManagedChannel;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.concurrent.TimeUnit;

/**
 * The gRPC client: grpc-java's blocking stub generated from the protocol's {@code grpc_predict_v2.proto}, over one
 * plain-text HTTP/2 channel to 127.0.0.1 that every client thread shares; the inputs go in
 * {@code raw_input_contents} (little-endian INT64), so {@code last_hidden_state} comes back raw. Thread safe.
 */
final class GrpcInferClient implements InferClient {
    private final ManagedChannel channel;
    private final GRPCInferenceServiceGrpc.GRPCInferenceServiceBlockingStub stub;
    private final ModelInferRequest[] requests;

    /**
     * Opens the channel and builds each row's request once (the model's name is set per call).
     *
     * @param port the server's gRPC port on 127.0.0.1
     * @param tokens the rows
     */
    GrpcInferClient(int port, TokenRows tokens) {
        this.channel = NettyChannelBuilder.forAddress("127.0.0.1", port).usePlaintext()
                .maxInboundMessageSize(64 << 20).build();
        this.stub = GRPCInferenceServiceGrpc.newBlockingStub(channel);
        this.requests = new ModelInferRequest[tokens.count()];
        for (int r = 0; r < requests.length; r++) {
            long[][] values = Inputs.values(tokens, r);
            ModelInferRequest.Builder b = ModelInferRequest.newBuilder().addOutputs(
                    ModelInferRequest.InferRequestedOutputTensor.newBuilder().setName(ExpectedOutputs.OUTPUT));
            for (int i = 0; i < Inputs.NAMES.length; i++) {
                b.addInputs(InferInputTensor.newBuilder().setName(Inputs.NAMES[i]).setDatatype("INT64")
                        .addShape(1).addShape(tokens.length()));
                ByteBuffer bytes = ByteBuffer.allocate(values[i].length * Long.BYTES).order(ByteOrder.LITTLE_ENDIAN);
                bytes.asLongBuffer().put(values[i]);
                b.addRawInputContents(ByteString.copyFrom(bytes.array()));
            }
            requests[r] = b.build();
        }
    }

    @Override
    public float[] infer(String model, int row) throws IOException {
        ModelInferResponse r = stub.withDeadlineAfter(60, TimeUnit.SECONDS)
                .modelInfer(requests[row].toBuilder().setModelName(model).build());
        if (r.getRawOutputContentsCount() != 1) {
            throw new IOException("the answer has " + r.getRawOutputContentsCount() + " raw outputs, expected 1");
        }
        ByteBuffer raw = r.getRawOutputContents(0).asReadOnlyByteBuffer().order(ByteOrder.LITTLE_ENDIAN);
        float[] values = new float[raw.remaining() / Float.BYTES];
        raw.asFloatBuffer().get(values);
        return values;
    }

    @Override
    public String protocol() {
        return "gRPC";
    }

    @Override
    public void close() {
        channel.shutdownNow();
        try {
            channel.awaitTermination(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
