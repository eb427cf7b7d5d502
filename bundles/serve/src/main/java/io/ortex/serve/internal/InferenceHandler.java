package io.ortex.serve.internal;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import io.ortex.api.Names;
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

    private final InferenceCore core;
    private final InferRequestDecoder decoder;
    private final InferResponseEncoder encoder = new InferResponseEncoder();
    private final JsonFactory json = new JsonFactory();

    /**
     * Creates the handler.
     *
     * @param core the protocol's meaning, shared with the gRPC service
     * @param decoder the request decoder, with its limits
     */
    public InferenceHandler(InferenceCore core, InferRequestDecoder decoder) {
        this.core = core;
        this.decoder = decoder;
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
            byte[] text = core.metrics().prometheusText().getBytes(StandardCharsets.UTF_8);
            return new Reply(200, PROMETHEUS, text, Map.of());
        }
        if (s.isEmpty() || !s.get(0).equals("v2")) {
            throw notFound(r);
        }
        if (s.size() == 1) {
            requireMethod(r, "GET");
            return json(200, g -> {
                g.writeStartObject();
                g.writeStringField("name", InferenceCore.SERVER_NAME);
                g.writeStringField("version", core.serverVersion());
                g.writeArrayFieldStart("extensions");
                for (String e : InferenceCore.EXTENSIONS) {
                    g.writeString(e);
                }
                g.writeEndArray();
                g.writeEndObject();
            });
        }
        switch (s.get(1)) {
            case "health" -> {
                if (s.size() == 3 && (s.get(2).equals("live") || s.get(2).equals("ready"))) {
                    requireMethod(r, "GET");
                    boolean live = s.get(2).equals("live");
                    boolean yes = live || core.ready();
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
        String name = InferenceCore.checkName(s.get(2));
        int next = 3;
        String version = null;
        if (s.size() >= 5 && s.get(3).equals("versions")) {
            version = s.get(4);
            if (version.isEmpty()) {
                throw ProtocolException.badRequest("the version is empty (a version is a decimal number)");
            }
            InferenceCore.checkVersion(version);
            next = 5;
        }
        if (s.size() == next) {
            requireMethod(r, "GET");
            return metadata(name, version);
        }
        if (s.size() == next + 1 && s.get(next).equals("ready")) {
            requireMethod(r, "GET");
            boolean ready = core.modelReady(name, version);
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
        InferenceCore.ModelMetadata m = core.metadata(name, version);
        return json(200, g -> {
            g.writeStartObject();
            g.writeStringField("name", m.name());
            g.writeArrayFieldStart("versions");
            g.writeString(m.version());
            g.writeEndArray();
            g.writeStringField("platform", InferenceCore.PLATFORM);
            writeTensorMetadata(g, "inputs", m.inputs());
            writeTensorMetadata(g, "outputs", m.outputs());
            g.writeEndObject();
        });
    }

    private static void writeTensorMetadata(JsonGenerator g, String field, List<InferenceCore.TensorMetadata> tensors)
            throws IOException {
        g.writeArrayFieldStart(field);
        for (InferenceCore.TensorMetadata t : tensors) {
            g.writeStartObject();
            g.writeStringField("name", t.name());
            g.writeStringField("datatype", t.datatype());
            g.writeArrayFieldStart("shape");
            for (long d : t.shape()) {
                g.writeNumber(d);
            }
            g.writeEndArray();
            g.writeEndObject();
        }
        g.writeEndArray();
    }

    private Reply infer(Request r, String name, String version) {
        return core.infer(name, version, () -> decoder.decode(r.body(), r.headerLength()), result -> {
            InferRequest request = result.request();
            Map<String, Boolean> binary = new LinkedHashMap<>();
            for (InferRequest.RequestedOutput o : request.outputs()) {
                binary.put(o.name(), o.binaryData() == null ? request.binaryDataOutput() : o.binaryData());
            }
            List<InferResponseEncoder.Output> outputs = new ArrayList<>();
            result.outputs().forEach((o, tensor) -> outputs.add(new InferResponseEncoder.Output(o, tensor,
                    binary.getOrDefault(o, request.binaryDataOutput()))));
            InferResponseEncoder.Encoded e = encoder.encode(result.model(), result.version(), request.id(), outputs);
            return e.headerLength() < 0 ? new Reply(200, JSON, e.body(), Map.of())
                    : new Reply(200, OCTETS, e.body(), Map.of(HEADER_LENGTH, Integer.toString(e.headerLength())));
        });
    }

    /** {@code /v2/repository/index}, {@code /v2/repository/models/{name}/load|unload}. */
    private Reply repository(Request r, List<String> s) {
        if (s.size() == 3 && s.get(2).equals("index")) {
            requireMethod(r, "POST");
            List<ModelRepository.Entry> entries = core.repository().index();
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
            String name = InferenceCore.checkName(s.get(3));
            if (s.get(4).equals("load")) {
                core.repository().load(name);
            } else {
                core.repository().unload(name);
            }
            return json(200, g -> {
                g.writeStartObject();
                g.writeEndObject();
            });
        }
        throw notFound(r);
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
