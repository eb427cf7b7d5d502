package io.ortex.serve.internal.status;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import io.ortex.api.HardwareDevice;
import io.ortex.api.NodeAssignment;
import io.ortex.serve.internal.ModelStats;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Map;
import java.util.TreeMap;

/**
 * Writes a {@link StatusSnapshot} as JSON ({@code /status.json}): the same data the page shows, the graphs as their
 * node assignment rather than pictures, plus a {@code signature} of the models and EP devices that the page's script
 * compares to know when to reload. Stateless.
 */
public final class StatusJson {
    private static final JsonFactory JSON = new JsonFactory();

    private StatusJson() {
    }

    /**
     * Computes the signature of what, when it changes, needs the page drawn again: each model's version, state and
     * session, and each EP device's library, state and holders.
     *
     * @param s the snapshot
     * @return a short hexadecimal text
     */
    static String signature(StatusSnapshot s) {
        StringBuilder sb = new StringBuilder();
        s.models().forEach(m -> sb.append(m.name()).append('\u0000').append(m.version()).append('\u0000')
                .append(m.state()).append('\u0000').append(m.session()).append('\u0001'));
        s.eps().forEach(e -> sb.append(e.library()).append('\u0000').append(e.ep()).append('\u0000')
                .append(e.state()).append('\u0000').append(e.holders()).append('\u0001'));
        long h = 1125899906842597L;
        for (int i = 0; i < sb.length(); i++) {
            h = 31 * h + sb.charAt(i);
        }
        return Long.toHexString(h);
    }

    /**
     * Writes the snapshot.
     *
     * @param s the snapshot
     * @return the JSON text, UTF-8
     */
    public static byte[] write(StatusSnapshot s) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (JsonGenerator g = JSON.createGenerator(out)) {
            g.writeStartObject();
            g.writeStringField("time", s.time().toString());
            g.writeStringField("server", s.server());
            g.writeStringField("signature", signature(s));
            g.writeArrayFieldStart("hardware_devices");
            for (HardwareDevice d : s.hardware()) {
                g.writeStartObject();
                g.writeStringField("type", d.type().name());
                g.writeStringField("vendor", d.vendor());
                g.writeNumberField("vendor_id", d.vendorId());
                g.writeNumberField("device_id", d.deviceId());
                g.writeObjectFieldStart("metadata");
                for (Map.Entry<String, String> e : new TreeMap<>(d.metadata()).entrySet()) {
                    g.writeStringField(e.getKey(), e.getValue());
                }
                g.writeEndObject();
                g.writeEndObject();
            }
            g.writeEndArray();
            g.writeArrayFieldStart("ep_devices");
            for (StatusSnapshot.EpRow r : s.eps()) {
                g.writeStartObject();
                g.writeStringField("ep", r.ep());
                g.writeStringField("vendor", r.vendor());
                g.writeStringField("version", r.version());
                g.writeStringField("device", r.device());
                g.writeStringField("library", r.library());
                g.writeStringField("state", r.state());
                g.writeStringField("colour", s.colours().colour(r.ep()));
                g.writeArrayFieldStart("holders");
                for (String h : r.holders()) {
                    g.writeString(h);
                }
                g.writeEndArray();
                g.writeEndObject();
            }
            g.writeEndArray();
            g.writeObjectFieldStart("ep_colours");
            for (Map.Entry<String, String> e : s.colours().all().entrySet()) {
                g.writeStringField(e.getKey(), e.getValue());
            }
            g.writeEndObject();
            g.writeArrayFieldStart("models");
            for (StatusSnapshot.ModelRow m : s.models()) {
                model(g, m);
            }
            g.writeEndArray();
            g.writeEndObject();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toByteArray();
    }

    private static void model(JsonGenerator g, StatusSnapshot.ModelRow m) throws IOException {
        g.writeStartObject();
        g.writeStringField("name", m.name());
        g.writeStringField("version", m.version());
        g.writeStringField("state", m.state());
        g.writeStringField("reason", m.reason());
        g.writeNumberField("in_flight", m.inFlight());
        g.writeStringField("session", m.session());
        g.writeArrayFieldStart("eps");
        for (String ep : m.eps()) {
            g.writeString(ep);
        }
        g.writeEndArray();
        ModelStats st = m.stats();
        g.writeObjectFieldStart("stats");
        g.writeNumberField("requests", st == null ? 0 : st.requests());
        g.writeNumberField("failures", st == null ? 0 : st.failures());
        g.writeNumberField("requests_per_second", st == null ? 0 : st.perSecond());
        g.writeNumberField("mean_ms", st == null ? 0 : st.meanMillis());
        g.writeNumberField("p50_ms", st == null ? 0 : st.p50Millis());
        g.writeNumberField("p99_ms", st == null ? 0 : st.p99Millis());
        g.writeEndObject();
        g.writeObjectFieldStart("nodes_per_ep");
        for (Map.Entry<String, Integer> e : m.nodesPerEp().entrySet()) {
            g.writeNumberField(e.getKey(), e.getValue());
        }
        g.writeEndObject();
        if (!m.graphError().isEmpty()) {
            g.writeStringField("graph_error", m.graphError());
        }
        g.writeArrayFieldStart("assignment");
        for (NodeAssignment a : m.assignment()) {
            g.writeStartObject();
            g.writeStringField("node", a.node());
            g.writeStringField("op", a.opType());
            g.writeStringField("ep", a.ep());
            g.writeEndObject();
        }
        g.writeEndArray();
        g.writeEndObject();
    }
}
