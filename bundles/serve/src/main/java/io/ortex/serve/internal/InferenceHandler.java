package io.ortex.serve.internal;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import io.ortex.api.InvalidArgumentException;
import io.ortex.api.Names;
import io.ortex.api.OrtexException;
import io.ortex.api.ResourceLimitException;
import io.ortex.api.Session;
import io.ortex.api.Tensor;
import io.ortex.api.TensorInfo;
import io.ortex.serve.internal.HttpExchange.Reply;
import io.ortex.serve.internal.HttpExchange.Request;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The routes of the Open Inference Protocol v2 REST API, the repository extension and {@code /metrics}, on requests
 * and replies free of the servlet API: health, server and model metadata, model readiness, inference, the
 * repository's index, load and unload. Errors are the protocol's {@code {"error": "..."}} with their status. Thread
 * safe.
 */
public final class InferenceHandler {
    /** The content type of JSON replies. */
    static final String JSON = "application/json";
    /** The content type of replies with binary tensor data. */
    static final String OCTETS = "application/octet-stream";
    /** The content type of {@code /metrics}. */
    static final String PROMETHEUS = "text/plain; version=0.0.4; charset=utf-8";
    /** The header giving the JSON part's length when binary data follows. */
    public static final String HEADER_LENGTH = "Inference-Header-Content-Length";

    private static final Logger LOG = LoggerFactory.getLogger("io.ortex.serve.inference");

    private final ModelRepository repository;
    private final Metrics metrics;
    private final InferRequestDecoder decoder;
    private final InferResponseEncoder encoder = new InferResponseEncoder();
    private final JsonFactory json = new JsonFactory();
    private final String serverVersion;

    /**
     * Creates the handler.
     *
     * @param repository the models
     * @param metrics where requests are counted
     * @param decoder the request decoder, with its limits
     * @param serverVersion the version {@code GET /v2} reports
     */
    public InferenceHandler(ModelRepository repository, Metrics metrics, InferRequestDecoder decoder,
            String serverVersion) {
        this.repository = repository;
        this.metrics = metrics;
        this.decoder = decoder;
        this.serverVersion = serverVersion;
    }

    /**
     * Answers one request.
     *
     * @param request the request
     * @return the reply; never throws for a client's mistake
     */
    public Reply handle(Request request) {
        try {
            return route(request, PathSegments.parse(request.path()));
        } catch (ProtocolException e) {
            return error(e.status(), e.getMessage());
        } catch (RuntimeException e) {
            LOG.warn("{} {} failed: {}", request.method(), Names.oneLine(request.path()),
                    Names.oneLine(String.valueOf(e)), e);
            return error(ProtocolException.INTERNAL, "internal error: " + Names.oneLine(String.valueOf(e)));
        }
    }

    private Reply route(Request r, List<String> s) {
        if (s.size() == 1 && s.get(0).equals("metrics")) {
            requireMethod(r, "GET");
            return new Reply(200, PROMETHEUS, metrics.prometheusText().getBytes(StandardCharsets.UTF_8), Map.of());
        }
        if (s.isEmpty() || !s.get(0).equals("v2")) {
            throw notFound(r);
        }
        if (s.size() == 1) {
            requireMethod(r, "GET");
            return json(200, g -> {
                g.writeStartObject();
                g.writeStringField("name", "ortex");
                g.writeStringField("version", serverVersion);
                g.writeArrayFieldStart("extensions");
                g.writeString("binary_tensor_data");
                g.writeString("model_repository");
                g.writeEndArray();
                g.writeEndObject();
            });
        }
        switch (s.get(1)) {
            case "health" -> {
                if (s.size() == 3 && (s.get(2).equals("live") || s.get(2).equals("ready"))) {
                    requireMethod(r, "GET");
                    boolean live = s.get(2).equals("live");
                    boolean yes = live || repository.ready();
                    return json(yes ? 200 : 400, g -> {
                        g.writeStartObject();
                        g.writeBooleanField(live ? "live" : "ready", yes);
                        g.writeEndObject();
                    });
                }
            }
            case "models" -> {
                return model(r, s);
            }
            case "repository" -> {
                return repository(r, s);
            }
            default -> {
            }
        }
        throw notFound(r);
    }

    /** {@code /v2/models/{name}[/versions/{v}][/ready|/infer]}. */
    private Reply model(Request r, List<String> s) {
        if (s.size() < 3) {
            throw notFound(r);
        }
        String name = modelName(s.get(2));
        int next = 3;
        String version = null;
        if (s.size() >= 5 && s.get(3).equals("versions")) {
            version = s.get(4);
            if (!ModelRepository.validVersion(version)) {
                throw ProtocolException.badRequest("invalid version " + Names.quote(version)
                        + " (a version is a decimal number)");
            }
            next = 5;
        }
        if (s.size() == next) {
            requireMethod(r, "GET");
            return metadata(name, version);
        }
        if (s.size() == next + 1 && s.get(next).equals("ready")) {
            requireMethod(r, "GET");
            boolean ready;
            try {
                repository.release(repository.acquire(name, version));
                ready = true;
            } catch (ProtocolException e) {
                ready = false;
            }
            boolean answer = ready;
            return json(ready ? 200 : 400, g -> {
                g.writeStartObject();
                g.writeBooleanField("ready", answer);
                g.writeEndObject();
            });
        }
        if (s.size() == next + 1 && s.get(next).equals("infer")) {
            requireMethod(r, "POST");
            return infer(r, name, version);
        }
        throw notFound(r);
    }

    private Reply metadata(String name, String version) {
        ServedModel m = repository.acquire(name, version);
        try {
            Session session = m.session();
            return json(200, g -> {
                g.writeStartObject();
                g.writeStringField("name", m.name());
                g.writeArrayFieldStart("versions");
                g.writeString(m.version());
                g.writeEndArray();
                g.writeStringField("platform", "onnx");
                writeTensorInfos(g, "inputs", session.inputs());
                writeTensorInfos(g, "outputs", session.outputs());
                g.writeEndObject();
            });
        } finally {
            repository.release(m);
        }
    }

    private static void writeTensorInfos(JsonGenerator g, String field, List<TensorInfo> infos) throws IOException {
        g.writeArrayFieldStart(field);
        for (TensorInfo info : infos) {
            g.writeStartObject();
            g.writeStringField("name", info.name());
            g.writeStringField("datatype", datatypeName(info));
            g.writeArrayFieldStart("shape");
            if (info.hasShape()) {
                for (long d : info.dims()) {
                    g.writeNumber(d >= 0 ? d : -1);
                }
            }
            g.writeEndArray();
            g.writeEndObject();
        }
        g.writeEndArray();
    }

    private static String datatypeName(TensorInfo info) {
        Datatype d = info.type() == null ? null : Datatype.of(info.type());
        return d != null ? d.name() : info.type() == null ? "UNKNOWN" : info.type().name();
    }

    private Reply infer(Request r, String name, String version) {
        long start = System.nanoTime();
        ServedModel m = repository.acquire(name, version);
        long compute = -1;
        boolean ok = false;
        try {
            InferRequest request = decoder.decode(r.body(), r.headerLength());
            Session session = m.session();
            Map<String, Tensor> inputs = inputs(m, request);
            List<String> outputNames = outputNames(m, request);
            long t0 = System.nanoTime();
            Map<String, Tensor> results = run(m, session, inputs, outputNames);
            compute = System.nanoTime() - t0;
            Map<String, Boolean> binary = new LinkedHashMap<>();
            for (InferRequest.RequestedOutput o : request.outputs()) {
                binary.put(o.name(), o.binaryData() == null ? request.binaryDataOutput() : o.binaryData());
            }
            List<InferResponseEncoder.Output> outputs = new ArrayList<>();
            for (String o : outputNames) {
                outputs.add(new InferResponseEncoder.Output(o, results.get(o),
                        binary.getOrDefault(o, request.binaryDataOutput())));
            }
            InferResponseEncoder.Encoded e = encoder.encode(m.name(), m.version(), request.id(), outputs);
            ok = true;
            return e.headerLength() < 0 ? new Reply(200, JSON, e.body(), Map.of())
                    : new Reply(200, OCTETS, e.body(), Map.of(HEADER_LENGTH, Integer.toString(e.headerLength())));
        } finally {
            repository.release(m);
            metrics.record(m.name(), m.version(), ok, System.nanoTime() - start, compute);
        }
    }

    private static Map<String, Tensor> run(ServedModel m, Session session, Map<String, Tensor> inputs,
            List<String> outputNames) {
        try {
            return session.run(inputs, outputNames);
        } catch (InvalidArgumentException | ResourceLimitException e) {
            throw ProtocolException.badRequest("model " + Names.quote(m.name()) + ": " + Names.oneLine(e.getMessage()));
        } catch (OrtexException e) {
            LOG.warn("model {} version {} failed: {}", Names.quote(m.name()), m.version(),
                    Names.oneLine(e.getMessage()));
            throw new ProtocolException(ProtocolException.INTERNAL, "model " + Names.quote(m.name()) + " failed: "
                    + Names.oneLine(e.getMessage()));
        }
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

    /** {@code /v2/repository/index}, {@code /v2/repository/models/{name}/load|unload}. */
    private Reply repository(Request r, List<String> s) {
        if (s.size() == 3 && s.get(2).equals("index")) {
            requireMethod(r, "POST");
            List<ModelRepository.Entry> entries = repository.index();
            return json(200, g -> {
                g.writeStartArray();
                for (ModelRepository.Entry e : entries) {
                    g.writeStartObject();
                    g.writeStringField("name", e.name());
                    g.writeStringField("version", e.version());
                    g.writeStringField("state", e.state());
                    g.writeStringField("reason", e.reason());
                    g.writeEndObject();
                }
                g.writeEndArray();
            });
        }
        if (s.size() == 5 && s.get(2).equals("models") && (s.get(4).equals("load") || s.get(4).equals("unload"))) {
            requireMethod(r, "POST");
            String name = modelName(s.get(3));
            if (s.get(4).equals("load")) {
                repository.load(name);
            } else {
                repository.unload(name);
            }
            return json(200, g -> {
                g.writeStartObject();
                g.writeEndObject();
            });
        }
        throw notFound(r);
    }

    private static String modelName(String name) {
        if (!ModelRepository.validName(name)) {
            throw ProtocolException.badRequest("invalid model name " + Names.quote(name) + " (letters, digits, '_', "
                    + "'-' and '.', starting with a letter or digit, at most 128 characters)");
        }
        return name;
    }

    private static void requireMethod(Request r, String method) {
        if (!r.method().equals(method)) {
            throw new ProtocolException(ProtocolException.METHOD_NOT_ALLOWED, r.method() + " is not allowed on "
                    + Names.quote(r.path()) + ": use " + method);
        }
    }

    private static ProtocolException notFound(Request r) {
        return new ProtocolException(ProtocolException.NOT_FOUND, "no route " + r.method() + " "
                + Names.quote(r.path()));
    }

    /**
     * Builds the protocol's error reply.
     *
     * @param status the status
     * @param message the message
     * @return the reply {@code {"error": message}}
     */
    public Reply error(int status, String message) {
        return json(status, g -> {
            g.writeStartObject();
            g.writeStringField("error", message);
            g.writeEndObject();
        });
    }

    private Reply json(int status, JsonWriter writer) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (JsonGenerator g = json.createGenerator(out)) {
            writer.write(g);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return new Reply(status, JSON, out.toByteArray(), Map.of());
    }

    /** Writes one JSON value. */
    @FunctionalInterface
    private interface JsonWriter {
        void write(JsonGenerator g) throws IOException;
    }
}
