package io.ortex.serve.internal;

import io.ortex.api.InvalidArgumentException;
import io.ortex.api.Names;
import io.ortex.api.OrtexException;
import io.ortex.api.ResourceLimitException;
import io.ortex.api.Session;
import io.ortex.api.Tensor;
import io.ortex.api.TensorInfo;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the Open Inference Protocol means, whatever carries it: server and model readiness, model metadata, and
 * inference: the model looked up and held for the request, the inputs checked against the model (names, datatypes,
 * ranks, fixed dimensions), the outputs asked for checked, the run (alone, or through the version's {@link Batcher}
 * when the model is batched), and the request counted in the {@link Metrics}.
 * The REST routes ({@link InferenceHandler}) and the gRPC service ({@link GrpcInferenceService}) both answer through
 * it, so the two agree. Failures are {@link ProtocolException}s naming what is at fault. Thread safe.
 */
public final class InferenceCore {
    /** The server's name in the server metadata. */
    public static final String SERVER_NAME = "ortex";
    /** The protocol extensions the server supports. */
    public static final List<String> EXTENSIONS = List.of("binary_tensor_data", "model_repository");
    /** The platform models report in their metadata. */
    public static final String PLATFORM = "onnx";

    private static final Logger LOG = LoggerFactory.getLogger("io.ortex.serve.inference");

    private final ModelRepository repository;
    private final Metrics metrics;
    private final String serverVersion;

    /**
     * Creates the core.
     *
     * @param repository the models
     * @param metrics where requests are counted
     * @param serverVersion the version the server metadata reports
     */
    public InferenceCore(ModelRepository repository, Metrics metrics, String serverVersion) {
        this.repository = repository;
        this.metrics = metrics;
        this.serverVersion = serverVersion;
    }

    /**
     * Gets the server's version.
     *
     * @return the version
     */
    public String serverVersion() {
        return serverVersion;
    }

    /**
     * Gets the metrics.
     *
     * @return the metrics
     */
    public Metrics metrics() {
        return metrics;
    }

    /**
     * Gets the repository.
     *
     * @return the repository
     */
    public ModelRepository repository() {
        return repository;
    }

    /**
     * Tells whether the server is ready: the models folder was scanned once.
     *
     * @return true when ready
     */
    public boolean ready() {
        return repository.ready();
    }

    /**
     * Tells whether a model (version) is loaded and takes requests.
     *
     * @param name the model's name
     * @param version the version, or null or empty for the one served
     * @return true when ready
     * @throws ProtocolException (400) when the name or version is not valid
     */
    public boolean modelReady(String name, String version) {
        try {
            repository.release(repository.acquire(checkName(name), checkVersion(version)));
            return true;
        } catch (ProtocolException e) {
            if (e.status() == ProtocolException.BAD_REQUEST) {
                throw e;
            }
            return false;
        }
    }

    /**
     * The metadata of one tensor.
     *
     * @param name the tensor's name
     * @param datatype its datatype's name ({@code UNKNOWN} or the element type where the protocol has none)
     * @param shape its dimensions, -1 for one of any size; empty when the model does not say
     */
    public record TensorMetadata(String name, String datatype, long[] shape) {
    }

    /**
     * A model's metadata.
     *
     * @param name the model's name
     * @param version the version served
     * @param inputs its inputs
     * @param outputs its outputs
     */
    public record ModelMetadata(String name, String version, List<TensorMetadata> inputs,
            List<TensorMetadata> outputs) {
    }

    /**
     * Gets a model's metadata.
     *
     * @param name the model's name
     * @param version the version, or null or empty for the one served
     * @return the metadata
     * @throws ProtocolException 400 for an invalid name or version, 404 when there is no such model or version, 503
     *     when it is not loaded
     */
    public ModelMetadata metadata(String name, String version) {
        ServedModel m = repository.acquire(checkName(name), checkVersion(version));
        try {
            Session session = m.session();
            return new ModelMetadata(m.name(), m.version(), tensorMetadata(session.inputs()),
                    tensorMetadata(session.outputs()));
        } finally {
            repository.release(m);
        }
    }

    private static List<TensorMetadata> tensorMetadata(List<TensorInfo> infos) {
        List<TensorMetadata> list = new ArrayList<>();
        for (TensorInfo info : infos) {
            long[] shape = info.hasShape() ? info.dims().clone() : new long[0];
            for (int i = 0; i < shape.length; i++) {
                shape[i] = shape[i] >= 0 ? shape[i] : -1;
            }
            list.add(new TensorMetadata(info.name(), datatypeName(info), shape));
        }
        return List.copyOf(list);
    }

    static String datatypeName(TensorInfo info) {
        Datatype d = info.type() == null ? null : Datatype.of(info.type());
        return d != null ? d.name() : info.type() == null ? "UNKNOWN" : info.type().name();
    }

    /**
     * An inference's result, valid only inside the encoder given to
     * {@link #infer(String, String, Supplier, Function)}: the model version is held until the encoder returns.
     *
     * @param model the model's name
     * @param version the version that ran
     * @param request the decoded request
     * @param outputs the outputs asked for (or all of the model's), in the order asked for, each with its value
     */
    public record InferResult(String model, String version, InferRequest request, Map<String, Tensor> outputs) {
    }

    /**
     * Runs one inference request and counts it in the metrics: looks the model up and holds its version, decodes
     * the request, checks its inputs and outputs against the model, runs it, and encodes the result before the
     * version is released.
     *
     * @param <T> the encoded response
     * @param name the model's name
     * @param version the version, or null or empty for the one served
     * @param decoder decodes the request (after the model was found, so a malformed request counts as its failure)
     * @param encoder encodes the result
     * @return the encoded response
     * @throws ProtocolException naming what is at fault: 400 for a request that does not fit the protocol or the
     *     model, 404 for no such model or version, 413 over a limit, 500 when the model failed, 503 when not loaded
     */
    public <T> T infer(String name, String version, Supplier<InferRequest> decoder,
            Function<InferResult, T> encoder) {
        long start = System.nanoTime();
        ServedModel m = repository.acquire(checkName(name), checkVersion(version));
        long compute = -1;
        long queue = -1;
        boolean ok = false;
        try {
            InferRequest request = decoder.get();
            Session session = m.session();
            Map<String, Tensor> inputs = inputs(m, request);
            List<String> outputNames = outputNames(m, request);
            Batcher batcher = m.batcher();
            Map<String, Tensor> results;
            if (batcher != null) {
                Batcher.Result r = run(m, () -> batcher.submit(inputs, outputNames));
                results = r.outputs();
                compute = r.computeNanos();
                queue = r.queueNanos();
                if (r.first()) {
                    metrics.recordBatch(m.name(), m.version(), r.batchSize());
                }
            } else {
                long t0 = System.nanoTime();
                results = run(m, () -> session.run(inputs, outputNames));
                compute = System.nanoTime() - t0;
                metrics.recordBatch(m.name(), m.version(), 1);
            }
            Map<String, Tensor> outputs = new LinkedHashMap<>();
            for (String o : outputNames) {
                outputs.put(o, results.get(o));
            }
            T encoded = encoder.apply(new InferResult(m.name(), m.version(), request, outputs));
            ok = true;
            return encoded;
        } finally {
            repository.release(m);
            metrics.record(m.name(), m.version(), ok, System.nanoTime() - start, queue, compute);
        }
    }

    private static <R> R run(ServedModel m, Supplier<R> run) {
        try {
            return run.get();
        } catch (Batcher.MergedRunException e) {
            throw failure(m, e.failure(), " (in a run of " + e.requests() + " merged requests)");
        } catch (RuntimeException e) {
            throw failure(m, e, "");
        }
    }

    private static RuntimeException failure(ServedModel m, RuntimeException e, String merged) {
        if (e instanceof InvalidArgumentException || e instanceof ResourceLimitException) {
            return ProtocolException.badRequest("model " + Names.quote(m.name()) + ": "
                    + Names.oneLine(e.getMessage()) + merged);
        }
        if (e instanceof OrtexException) {
            LOG.warn("model {} version {} failed{}: {}", Names.quote(m.name()), m.version(), merged,
                    Names.oneLine(e.getMessage()));
            return new ProtocolException(ProtocolException.INTERNAL, "model " + Names.quote(m.name()) + " failed: "
                    + Names.oneLine(e.getMessage()) + merged);
        }
        return e;
    }

    /** Checks the request's inputs against the model's: names, datatypes, ranks and fixed dimensions. */
    private static Map<String, Tensor> inputs(ServedModel m, InferRequest request) {
        Map<String, InferRequest.Input> given = new LinkedHashMap<>();
        for (InferRequest.Input in : request.inputs()) {
            given.put(in.name(), in);
        }
        List<TensorInfo> expected = m.session().inputs();
        Map<String, Tensor> inputs = new LinkedHashMap<>();
        for (TensorInfo info : expected) {
            InferRequest.Input in = given.remove(info.name());
            if (in == null) {
                throw ProtocolException.badRequest("input " + Names.quote(info.name()) + " is missing (model "
                        + Names.quote(m.name()) + " takes " + names(expected) + ")");
            }
            String datatype = datatypeName(info);
            if (!in.datatype().name().equals(datatype)) {
                throw ProtocolException.badRequest("input " + Names.quote(in.name()) + ": datatype "
                        + in.datatype() + ", but model " + Names.quote(m.name()) + " takes " + datatype);
            }
            long[] shape = in.tensor().shape();
            if (info.hasShape() && !fits(shape, info.dims())) {
                throw ProtocolException.badRequest("input " + Names.quote(in.name()) + ": shape "
                        + Shapes.text(shape) + " does not fit the model's " + dims(info));
            }
            inputs.put(in.name(), in.tensor());
        }
        if (!given.isEmpty()) {
            throw ProtocolException.badRequest("model " + Names.quote(m.name()) + " has no input "
                    + Names.quote(given.keySet().iterator().next()) + " (it takes " + names(expected) + ")");
        }
        return inputs;
    }

    private static List<String> outputNames(ServedModel m, InferRequest request) {
        List<TensorInfo> outputs = m.session().outputs();
        if (request.outputs().isEmpty()) {
            return outputs.stream().map(TensorInfo::name).toList();
        }
        List<String> names = new ArrayList<>();
        for (InferRequest.RequestedOutput o : request.outputs()) {
            if (outputs.stream().noneMatch(i -> i.name().equals(o.name()))) {
                throw ProtocolException.badRequest("model " + Names.quote(m.name()) + " has no output "
                        + Names.quote(o.name()) + " (it has " + names(outputs) + ")");
            }
            if (names.contains(o.name())) {
                throw ProtocolException.badRequest("output " + Names.quote(o.name()) + " is asked for twice");
            }
            names.add(o.name());
        }
        return names;
    }

    private static boolean fits(long[] shape, long[] dims) {
        if (shape.length != dims.length) {
            return false;
        }
        for (int i = 0; i < dims.length; i++) {
            if (dims[i] >= 0 && dims[i] != shape[i]) {
                return false;
            }
        }
        return true;
    }

    private static String dims(TensorInfo info) {
        StringBuilder sb = new StringBuilder("[");
        long[] dims = info.dims();
        for (int i = 0; i < dims.length; i++) {
            if (i > 0) {
                sb.append(',');
            }
            String symbol = info.dimNames() == null || info.dimNames().get(i).isEmpty() ? "?"
                    : Names.escape(info.dimNames().get(i));
            sb.append(dims[i] >= 0 ? Long.toString(dims[i]) : symbol);
        }
        return sb.append(']').toString();
    }

    private static String names(List<TensorInfo> infos) {
        return infos.stream().map(i -> Names.quote(i.name())).reduce((a, b) -> a + ", " + b).orElse("nothing");
    }

    /**
     * Checks a model name.
     *
     * @param name the name
     * @return the name
     * @throws ProtocolException (400) when it is not a valid model name
     */
    public static String checkName(String name) {
        if (!ModelRepository.validName(name)) {
            throw ProtocolException.badRequest("invalid model name " + Names.quote(String.valueOf(name))
                    + " (letters, digits, '_', '-' and '.', starting with a letter or digit, at most 128 characters)");
        }
        return name;
    }

    /**
     * Checks a version; null or empty asks for the version served.
     *
     * @param version the version, or null or empty
     * @return the version, or null for the one served
     * @throws ProtocolException (400) when it is not a decimal number
     */
    public static String checkVersion(String version) {
        if (version == null || version.isEmpty()) {
            return null;
        }
        if (!ModelRepository.validVersion(version)) {
            throw ProtocolException.badRequest("invalid version " + Names.quote(version)
                    + " (a version is a decimal number)");
        }
        return version;
    }
}
