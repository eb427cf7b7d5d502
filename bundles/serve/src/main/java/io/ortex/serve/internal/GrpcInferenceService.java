package io.ortex.serve.internal;

import inference.GRPCInferenceServiceGrpc;
import inference.GrpcPredictV2.ModelInferRequest;
import inference.GrpcPredictV2.ModelInferResponse;
import inference.GrpcPredictV2.ModelMetadataRequest;
import inference.GrpcPredictV2.ModelMetadataResponse;
import inference.GrpcPredictV2.ModelReadyRequest;
import inference.GrpcPredictV2.ModelReadyResponse;
import inference.GrpcPredictV2.ServerLiveRequest;
import inference.GrpcPredictV2.ServerLiveResponse;
import inference.GrpcPredictV2.ServerMetadataRequest;
import inference.GrpcPredictV2.ServerMetadataResponse;
import inference.GrpcPredictV2.ServerReadyRequest;
import inference.GrpcPredictV2.ServerReadyResponse;
import io.grpc.BindableService;
import io.grpc.ServerServiceDefinition;
import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import io.ortex.api.Names;
import java.util.List;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Open Inference Protocol's gRPC service {@code inference.GRPCInferenceService} on the {@link InferenceCore} the
 * REST routes use: the same models, checks, metrics and version holding. A {@link ProtocolException} becomes the
 * status its HTTP status stands for ({@link #status(ProtocolException)}) with the same message; an unexpected
 * failure becomes {@code INTERNAL} with a one-line message and is logged. No stack trace reaches the client. Thread
 * safe.
 */
public final class GrpcInferenceService implements BindableService {
    private static final Logger LOG = LoggerFactory.getLogger("io.ortex.serve.grpc");

    private final InferenceCore core;
    private final GrpcInferRequestDecoder decoder;
    private final GrpcInferResponseEncoder encoder = new GrpcInferResponseEncoder();
    private final Rpcs rpcs = new Rpcs();

    /**
     * Creates the service.
     *
     * @param core the protocol's meaning, shared with the REST routes
     * @param decoder the request decoder, with its limits
     */
    public GrpcInferenceService(InferenceCore core, GrpcInferRequestDecoder decoder) {
        this.core = core;
        this.decoder = decoder;
    }

    /**
     * Binds the service's six RPCs.
     *
     * @return the service definition for a gRPC server
     */
    @Override
    public ServerServiceDefinition bindService() {
        return GRPCInferenceServiceGrpc.bindService(rpcs);
    }

    private static List<ModelMetadataResponse.TensorMetadata> tensors(List<InferenceCore.TensorMetadata> list) {
        return list.stream().map(t -> {
            ModelMetadataResponse.TensorMetadata.Builder b = ModelMetadataResponse.TensorMetadata.newBuilder()
                    .setName(t.name()).setDatatype(t.datatype());
            for (long d : t.shape()) {
                b.addShape(d);
            }
            return b.build();
        }).toList();
    }

    /** The RPCs of the generated service interface, each answering through {@link #answer}. */
    private final class Rpcs implements GRPCInferenceServiceGrpc.AsyncService {
        /**
         * Answers that the server is live: it is, whenever it can answer.
         *
         * @param request the request
         * @param response where the answer or the status goes
         */
        @Override
        public void serverLive(ServerLiveRequest request, StreamObserver<ServerLiveResponse> response) {
            answer("ServerLive", response, () -> ServerLiveResponse.newBuilder().setLive(true).build());
        }

        /**
         * Answers whether the server is ready: the models folder was scanned once.
         *
         * @param request the request
         * @param response where the answer or the status goes
         */
        @Override
        public void serverReady(ServerReadyRequest request, StreamObserver<ServerReadyResponse> response) {
            answer("ServerReady", response, () -> ServerReadyResponse.newBuilder().setReady(core.ready()).build());
        }

        /**
         * Answers whether a model (version) is loaded; an invalid name or version is INVALID_ARGUMENT.
         *
         * @param request the request
         * @param response where the answer or the status goes
         */
        @Override
        public void modelReady(ModelReadyRequest request, StreamObserver<ModelReadyResponse> response) {
            answer("ModelReady", response, () -> ModelReadyResponse.newBuilder()
                    .setReady(core.modelReady(request.getName(), request.getVersion())).build());
        }

        /**
         * Answers the server's name, version and protocol extensions.
         *
         * @param request the request
         * @param response where the answer or the status goes
         */
        @Override
        public void serverMetadata(ServerMetadataRequest request, StreamObserver<ServerMetadataResponse> response) {
            answer("ServerMetadata", response, () -> ServerMetadataResponse.newBuilder()
                    .setName(InferenceCore.SERVER_NAME)
                    .setVersion(core.serverVersion())
                    .addAllExtensions(InferenceCore.EXTENSIONS)
                    .build());
        }

        /**
         * Answers a model's versions, platform, inputs and outputs; NOT_FOUND when there is no such model.
         *
         * @param request the request
         * @param response where the answer or the status goes
         */
        @Override
        public void modelMetadata(ModelMetadataRequest request, StreamObserver<ModelMetadataResponse> response) {
            answer("ModelMetadata", response, () -> {
                InferenceCore.ModelMetadata m = core.metadata(request.getName(), request.getVersion());
                return ModelMetadataResponse.newBuilder()
                        .setName(m.name())
                        .addVersions(m.version())
                        .setPlatform(InferenceCore.PLATFORM)
                        .addAllInputs(tensors(m.inputs()))
                        .addAllOutputs(tensors(m.outputs()))
                        .build();
            });
        }

        /**
         * Runs an inference; a request that does not fit the protocol or the model is INVALID_ARGUMENT.
         *
         * @param request the request
         * @param response where the answer or the status goes
         */
        @Override
        public void modelInfer(ModelInferRequest request, StreamObserver<ModelInferResponse> response) {
            answer("ModelInfer", response, () -> core.infer(request.getModelName(), request.getModelVersion(),
                    () -> decoder.decode(request), encoder::encode));
        }
    }

    /** Answers with the value, or with the status a failure stands for. */
    private static <T> void answer(String rpc, StreamObserver<T> response, Supplier<T> call) {
        T value;
        try {
            value = call.get();
        } catch (ProtocolException e) {
            response.onError(status(e).withDescription(e.getMessage()).asRuntimeException());
            return;
        } catch (RuntimeException e) {
            LOG.warn("{} failed: {}", rpc, Names.oneLine(String.valueOf(e)), e);
            response.onError(Status.INTERNAL.withDescription("internal error: " + Names.oneLine(String.valueOf(e)))
                    .asRuntimeException());
            return;
        }
        response.onNext(value);
        response.onCompleted();
    }

    /**
     * Gets the gRPC status that stands for a protocol failure's HTTP status: 400 {@code INVALID_ARGUMENT}, 404
     * {@code NOT_FOUND}, 413 {@code RESOURCE_EXHAUSTED}, 503 {@code UNAVAILABLE}, anything else {@code INTERNAL}.
     *
     * @param e the failure
     * @return the status, without a description
     */
    public static Status status(ProtocolException e) {
        return switch (e.status()) {
            case ProtocolException.BAD_REQUEST -> Status.INVALID_ARGUMENT;
            case ProtocolException.NOT_FOUND -> Status.NOT_FOUND;
            case ProtocolException.TOO_LARGE -> Status.RESOURCE_EXHAUSTED;
            case ProtocolException.UNAVAILABLE -> Status.UNAVAILABLE;
            default -> Status.INTERNAL;
        };
    }
}
