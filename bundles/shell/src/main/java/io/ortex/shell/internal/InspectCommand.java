package io.ortex.shell.internal;

import com.fasterxml.jackson.core.JsonGenerator;
import io.ortex.api.CompiledModelCompatibility;
import io.ortex.api.EpDevice;
import io.ortex.api.Environment;
import io.ortex.api.ErrorCode;
import io.ortex.api.Names;
import io.ortex.api.OrtexException;
import io.ortex.onnx.ModelReader;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * {@code ortex inspect MODEL [--json]}: what a model holds, compiled or not ({@link ModelInspection}), and for each
 * EP device of the environment the verdict of that EP's factory on the compatibility string the model stores. What
 * an operator checks before shipping a compiled model: a context binary the model names that is missing (or lies
 * outside the model's folder) is reported, then the verb fails with one line naming it (exit 1).
 */
public final class InspectCommand {
    /** The flags of this verb. */
    public static final Set<String> FLAGS = Set.of("--json", "--verbose");
    /** The valued options of this verb. */
    public static final Set<String> VALUED = SessionSettings.ENVIRONMENT;

    /**
     * A compatibility verdict for one EP device.
     *
     * @param device the EP device
     * @param verdict the verdict, or {@code null} when the model stores no compatibility string for its EP
     */
    private record Verdict(EpDevice device, CompiledModelCompatibility verdict) {
    }

    private InspectCommand() {
    }

    /**
     * Runs the verb.
     *
     * @param o the parsed options
     * @param out where the report goes
     * @return the exit status
     */
    public static int run(Options o, PrintStream out) {
        if (o.positional().size() != 1) {
            throw new UsageException("inspect needs exactly one MODEL, got " + o.positional().size());
        }
        Path file = Path.of(o.positional().get(0));
        ModelInspection m = ModelInspection.of(file, ModelReader.read(file));
        List<Verdict> verdicts = new ArrayList<>();
        try (Environment env = SessionSettings.environment(o)) {
            for (EpDevice d : env.epDevices()) {
                Map<String, CompiledModelCompatibility> v = m.compatibility().isEmpty() ? Map.of()
                        : env.compiledModelCompatibility(file, List.of(d));
                verdicts.add(new Verdict(d, v.get(d.epName())));
            }
        }
        if (o.has("--json")) {
            out.println(Json.render(g -> json(g, m, verdicts)));
        } else {
            text(out, m, verdicts);
        }
        List<ModelInspection.Binary> absent = m.absentBinaries();
        if (!absent.isEmpty()) {
            ModelInspection.Binary b = absent.get(0);
            throw new OrtexException(ErrorCode.FAIL, file + " names context binary " + Names.quote(b.location())
                    + ", which is " + b.state() + (absent.size() > 1 ? " (and " + (absent.size() - 1) + " more)" : "")
                    + ": the model cannot load");
        }
        return 0;
    }

    private static void text(PrintStream out, ModelInspection m, List<Verdict> verdicts) {
        Table.line(out, "model %s: IR version %d, producer %s", m.file(), m.irVersion(),
                m.producer().isEmpty() ? "(none)" : Names.quote(m.producer()));
        Table.line(out, "opsets: %s", m.opsets());
        for (ModelInspection.Value v : m.inputs()) {
            Table.line(out, "input  %s %s %s", Names.quote(v.name()), v.type(), v.shape());
        }
        for (ModelInspection.Value v : m.outputs()) {
            Table.line(out, "output %s %s %s", Names.quote(v.name()), v.type(), v.shape());
        }
        Table.line(out, "nodes: %d %s", m.nodes(), m.nodesByOp());
        Table.line(out, "EPContext nodes: %d", m.contexts().size());
        for (ModelInspection.Context c : m.contexts()) {
            String payload = c.embedMode() != 0 ? "embedded (" + c.payloadBytes() + " bytes)"
                    : c.binary() != null ? "in " + Names.quote(c.binary())
                    : "in its EP's main context binary (partition " + Names.quote(c.partition()) + ")";
            Table.line(out, "  %s: source %s, embed_mode %d, %s context, payload %s%s%s", Names.quote(c.name()),
                    c.source(), c.embedMode(), c.mainContext() != 0 ? "main" : "secondary", payload,
                    c.contextKey().isEmpty() ? "" : " under key " + c.contextKey().substring(0,
                            Math.min(12, c.contextKey().length())),
                    c.sharedBlobs().isEmpty() ? "" : ", " + c.sharedBlobs().size() + " shared blob"
                            + (c.sharedBlobs().size() == 1 ? "" : "s") + (c.sharedBinary() != null ? " in "
                            + Names.quote(c.sharedBinary()) : ""));
        }
        for (ModelInspection.Binary b : m.binaries()) {
            Table.line(out, "binary %s: %s%s", Names.quote(b.location()), b.present() ? b.size() + " bytes, present"
                    : "missing".equals(b.state()) ? "MISSING" : b.state(),
                    b.index() == null ? "" : ", " + b.index().kind() + (b.index().entries() >= 0 ? " of "
                            + b.index().entries() + " entries" : ""));
        }
        if (m.compatibility().isEmpty()) {
            out.println("compatibility: the model stores no EP compatibility string");
        }
        m.compatibility().forEach((ep, info) -> Table.line(out, "compatibility string of %s: %s", ep,
                Names.quote(info)));
        for (Verdict v : verdicts) {
            Table.line(out, "  on %s %s: %s", v.device().epName(), v.device().device().type(),
                    v.verdict() == null ? "no compatibility string for this EP" : v.verdict());
        }
    }

    private static void json(JsonGenerator g, ModelInspection m, List<Verdict> verdicts) throws IOException {
        g.writeStartObject();
        g.writeStringField("model", m.file().toString());
        g.writeNumberField("ir_version", m.irVersion());
        g.writeStringField("producer", m.producer());
        g.writeObjectFieldStart("opsets");
        for (Map.Entry<String, Integer> e : m.opsets().entrySet()) {
            g.writeNumberField(e.getKey(), e.getValue());
        }
        g.writeEndObject();
        values(g, "inputs", m.inputs());
        values(g, "outputs", m.outputs());
        g.writeNumberField("node_count", m.nodes());
        g.writeObjectFieldStart("nodes_by_op");
        for (Map.Entry<String, Integer> e : m.nodesByOp().entrySet()) {
            g.writeNumberField(e.getKey(), e.getValue());
        }
        g.writeEndObject();
        g.writeArrayFieldStart("ep_context_nodes");
        for (ModelInspection.Context c : m.contexts()) {
            g.writeStartObject();
            g.writeStringField("name", c.name());
            g.writeStringField("source", c.source());
            g.writeNumberField("embed_mode", c.embedMode());
            g.writeNumberField("main_context", c.mainContext());
            g.writeStringField("partition_name", c.partition());
            if (c.payloadBytes() >= 0) {
                g.writeNumberField("payload_bytes", c.payloadBytes());
            }
            g.writeStringField("binary", c.binary());
            g.writeStringField("shared_binary", c.sharedBinary());
            g.writeStringField("context_key", c.contextKey());
            g.writeNumberField("shared_blobs", c.sharedBlobs().size());
            g.writeEndObject();
        }
        g.writeEndArray();
        g.writeArrayFieldStart("binaries");
        for (ModelInspection.Binary b : m.binaries()) {
            g.writeStartObject();
            g.writeStringField("location", b.location());
            g.writeStringField("path", b.path() == null ? null : b.path().toString());
            g.writeBooleanField("present", b.present());
            g.writeStringField("state", b.state());
            if (b.present()) {
                g.writeNumberField("size", b.size());
            }
            if (b.index() != null) {
                g.writeStringField("kind", b.index().kind());
                g.writeNumberField("entries", b.index().entries());
            }
            g.writeEndObject();
        }
        g.writeEndArray();
        g.writeObjectFieldStart("compatibility_info");
        for (Map.Entry<String, String> e : m.compatibility().entrySet()) {
            g.writeStringField(e.getKey(), e.getValue());
        }
        g.writeEndObject();
        g.writeArrayFieldStart("compatibility");
        for (Verdict v : verdicts) {
            g.writeStartObject();
            g.writeStringField("ep", v.device().epName());
            g.writeStringField("device", v.device().device().type().name());
            g.writeStringField("verdict", v.verdict() == null ? null : v.verdict().name());
            g.writeEndObject();
        }
        g.writeEndArray();
        g.writeEndObject();
    }

    private static void values(JsonGenerator g, String field, List<ModelInspection.Value> values)
            throws IOException {
        g.writeArrayFieldStart(field);
        for (ModelInspection.Value v : values) {
            g.writeStartObject();
            g.writeStringField("name", v.name());
            g.writeStringField("type", v.type());
            g.writeArrayFieldStart("shape");
            for (String d : v.shape()) {
                g.writeString(d);
            }
            g.writeEndArray();
            g.writeEndObject();
        }
        g.writeEndArray();
    }
}
