package io.ortex.serve.internal.status;

import io.ortex.api.HardwareDevice;
import io.ortex.serve.internal.ModelStats;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * Writes the status page's HTML from a {@link StatusSnapshot}: self-contained (inline CSS and script, nothing
 * fetched from elsewhere), as a whole page or as a fragment for Felix Web Console. Its script reads the JSON form
 * every few seconds and updates the request figures and states in place, reloading the page when the models or EP
 * devices changed. Every name is escaped. Stateless.
 */
public final class StatusPage {
    /** How often the page refreshes its figures, in milliseconds. */
    static final int REFRESH_MILLIS = 5000;

    private static final String CSS = """
            .ortex-status{font:14px/1.4 system-ui,sans-serif;color:#1a1a1a;max-width:100%}
            .ortex-status h1{font-size:22px;margin:4px 0}
            .ortex-status h2{font-size:17px;margin:18px 0 6px;border-bottom:1px solid #ccc}
            .ortex-status h3{font-size:15px;margin:14px 0 4px}
            .ortex-status table{border-collapse:collapse;margin:4px 0}
            .ortex-status th,.ortex-status td{border:1px solid #ccc;padding:3px 8px;text-align:left;vertical-align:top}
            .ortex-status th{background:#f0f0f0}
            .ortex-status td.num{text-align:right;font-variant-numeric:tabular-nums}
            .ortex-status .sub{color:#555}
            .ortex-status .state-active,.ortex-status .state-READY{color:#17692d;font-weight:600}
            .ortex-status .state-draining,.ortex-status .state-UNAVAILABLE{color:#a35200;font-weight:600}
            .ortex-status .state-UNLOADED{color:#666}
            .ortex-status .legend span.swatch{display:inline-block;width:14px;height:14px;border:1px solid #888;
              vertical-align:middle;margin:0 4px 0 12px}
            .ortex-status .graph-box{overflow:auto;max-height:75vh;border:1px solid #ccc;background:#fafafa}
            .ortex-status svg.graph path{fill:none;stroke:#8a8a8a;stroke-width:1}
            .ortex-status svg.graph rect{stroke:#555;stroke-width:.8}
            .ortex-status svg.graph text{font:11px system-ui,sans-serif;text-anchor:middle;fill:#1a1a1a}
            .ortex-status .note{color:#a35200}
            """;

    private static final String SCRIPT = """
            (function(){
              var root=document.currentScript.closest('.ortex-status');
              function fmt(v,d){return v==null?'':Number(v).toFixed(d);}
              function set(el,text){if(el&&el.textContent!==text){el.textContent=text;}}
              function refresh(){
                fetch(root.dataset.json,{cache:'no-store'}).then(function(r){return r.json();}).then(function(s){
                  if(s.signature!==root.dataset.signature){location.reload();return;}
                  s.models.forEach(function(m,i){
                    var st=m.stats||{};
                    set(root.querySelector('[data-model="'+i+'"][data-field="requests"]'),String(st.requests||0));
                    set(root.querySelector('[data-model="'+i+'"][data-field="failures"]'),String(st.failures||0));
                    set(root.querySelector('[data-model="'+i+'"][data-field="rate"]'),fmt(st.requests_per_second||0,2));
                    set(root.querySelector('[data-model="'+i+'"][data-field="mean"]'),fmt(st.mean_ms||0,2));
                    set(root.querySelector('[data-model="'+i+'"][data-field="p50"]'),fmt(st.p50_ms||0,2));
                    set(root.querySelector('[data-model="'+i+'"][data-field="p99"]'),fmt(st.p99_ms||0,2));
                    set(root.querySelector('[data-model="'+i+'"][data-field="in_flight"]'),String(m.in_flight));
                  });
                  set(root.querySelector('.updated'),s.time);
                }).catch(function(){});
              }
              setInterval(refresh,%d);
            })();
            """;

    private StatusPage() {
    }

    /**
     * Writes the whole page.
     *
     * @param s the snapshot
     * @param jsonUrl where the page's script reads the JSON form
     * @return the HTML document
     */
    public static String page(StatusSnapshot s, String jsonUrl) {
        return "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>Ortex status</title>"
                + "<meta name=\"viewport\" content=\"width=device-width\"></head><body>"
                + fragment(s, jsonUrl, true) + "</body></html>\n";
    }

    /**
     * Writes the page's content as one {@code <div class="ortex-status">}, with its style and script, to embed in
     * another page (Felix Web Console's).
     *
     * @param s the snapshot
     * @param jsonUrl where the script reads the JSON form
     * @param heading whether to start with the page's own heading
     * @return the HTML fragment
     */
    public static String fragment(StatusSnapshot s, String jsonUrl, boolean heading) {
        StringBuilder sb = new StringBuilder(8192);
        sb.append("<div class=\"ortex-status\" data-json=\"").append(Html.escape(jsonUrl))
                .append("\" data-signature=\"").append(StatusJson.signature(s)).append("\"><style>").append(CSS)
                .append("</style>");
        if (heading) {
            sb.append("<h1>Ortex status</h1>");
        }
        sb.append("<p class=\"sub\">Server ").append(Html.escape(s.server())).append(" \u00b7 updated <span "
                + "class=\"updated\">").append(s.time()).append("</span> \u00b7 <a href=\"")
                .append(Html.escape(jsonUrl)).append("\">JSON</a></p>");
        hardware(sb, s.hardware());
        eps(sb, s);
        models(sb, s);
        graphs(sb, s);
        sb.append("<script>").append(String.format(Locale.ROOT, SCRIPT, REFRESH_MILLIS)).append("</script></div>");
        return sb.toString();
    }

    private static void hardware(StringBuilder sb, List<HardwareDevice> devices) {
        sb.append("<h2>Hardware devices</h2><table class=\"hardware\"><tr><th>type</th><th>vendor</th>"
                + "<th>vendor id</th><th>device id</th><th>metadata</th></tr>");
        for (HardwareDevice d : devices) {
            sb.append("<tr><td>").append(d.type()).append("</td><td>").append(Html.escape(d.vendor()))
                    .append("</td><td>").append(String.format(Locale.ROOT, "0x%04x", d.vendorId()))
                    .append("</td><td>").append(String.format(Locale.ROOT, "0x%04x", d.deviceId()))
                    .append("</td><td>");
            new TreeMap<>(d.metadata()).forEach((k, v) -> sb.append(Html.escape(k)).append('=')
                    .append(Html.escape(v)).append(' '));
            sb.append("</td></tr>");
        }
        sb.append("</table>");
    }

    private static void eps(StringBuilder sb, StatusSnapshot s) {
        sb.append("<h2>EP devices</h2><table class=\"eps\"><tr><th>EP</th><th>vendor</th><th>version</th>"
                + "<th>device</th><th>library</th><th>state</th><th>sessions holding it</th></tr>");
        for (StatusSnapshot.EpRow r : s.eps()) {
            sb.append("<tr data-ep=\"").append(Html.escape(r.ep())).append("\"><td><span class=\"swatch-inline\" "
                    + "style=\"background:").append(s.colours().colour(r.ep())).append(";padding:0 6px;"
                    + "margin-right:6px;border:1px solid #888\"></span>").append(Html.escape(r.ep()))
                    .append("</td><td>").append(Html.escape(r.vendor())).append("</td><td>")
                    .append(Html.escape(r.version())).append("</td><td>").append(Html.escape(r.device()))
                    .append("</td><td>").append(Html.escape(r.library())).append("</td><td class=\"state state-")
                    .append(r.state()).append("\">").append(r.state()).append("</td><td class=\"holders\">")
                    .append(Html.escape(String.join(", ", r.holders()))).append("</td></tr>");
        }
        sb.append("</table>");
    }

    private static void models(StringBuilder sb, StatusSnapshot s) {
        sb.append("<h2>Models</h2>");
        if (s.models().isEmpty()) {
            sb.append("<p>No model is in the models folder.</p>");
            return;
        }
        sb.append("<table class=\"models\"><tr><th>model</th><th>version</th><th>state</th><th>EPs</th>"
                + "<th>session</th><th>requests</th><th>failures</th><th>requests/s (1 min)</th><th>mean ms</th>"
                + "<th>p50 ms</th><th>p99 ms</th><th>in flight</th></tr>");
        for (int i = 0; i < s.models().size(); i++) {
            StatusSnapshot.ModelRow m = s.models().get(i);
            ModelStats st = m.stats();
            sb.append("<tr class=\"model-row\" data-model-name=\"").append(Html.escape(m.name())).append("\"><td>")
                    .append(Html.escape(m.name())).append("</td><td>").append(Html.escape(m.version()))
                    .append("</td><td class=\"state state-").append(Html.escape(m.state())).append("\">")
                    .append(Html.escape(m.state()));
            if (!m.reason().isEmpty()) {
                sb.append("<div class=\"sub\">").append(Html.escape(m.reason())).append("</div>");
            }
            sb.append("</td><td>").append(Html.escape(String.join(", ", m.eps()))).append("</td><td>")
                    .append(Html.escape(m.session())).append("</td>");
            cell(sb, i, "requests", st == null ? "0" : Long.toString(st.requests()));
            cell(sb, i, "failures", st == null ? "0" : Long.toString(st.failures()));
            cell(sb, i, "rate", fmt(st == null ? 0 : st.perSecond()));
            cell(sb, i, "mean", fmt(st == null ? 0 : st.meanMillis()));
            cell(sb, i, "p50", fmt(st == null ? 0 : st.p50Millis()));
            cell(sb, i, "p99", fmt(st == null ? 0 : st.p99Millis()));
            cell(sb, i, "in_flight", Integer.toString(m.inFlight()));
            sb.append("</tr>");
        }
        sb.append("</table>");
    }

    private static void cell(StringBuilder sb, int model, String field, String value) {
        sb.append("<td class=\"num\" data-model=\"").append(model).append("\" data-field=\"").append(field)
                .append("\">").append(value).append("</td>");
    }

    static String fmt(double v) {
        return String.format(Locale.ROOT, "%.2f", v);
    }

    private static void graphs(StringBuilder sb, StatusSnapshot s) {
        sb.append("<h2>Graphs</h2><p class=\"legend\">Nodes are coloured by the EP that runs them:");
        for (Map.Entry<String, String> e : s.colours().all().entrySet()) {
            sb.append("<span class=\"swatch\" data-ep=\"").append(Html.escape(e.getKey()))
                    .append("\" data-colour=\"").append(e.getValue()).append("\" style=\"background:")
                    .append(e.getValue()).append("\"></span>").append(Html.escape(e.getKey()));
        }
        sb.append("<span class=\"swatch\" data-ep=\"\" data-colour=\"").append(EpColours.NOT_RUN)
                .append("\" style=\"background:").append(EpColours.NOT_RUN)
                .append("\"></span>not run (removed by the graph optimizer)</p>");
        for (int i = 0; i < s.models().size(); i++) {
            StatusSnapshot.ModelRow m = s.models().get(i);
            if (m.graph().isEmpty() && m.graphError().isEmpty()) {
                continue;
            }
            sb.append("<section class=\"model-graph\" data-model-name=\"").append(Html.escape(m.name()))
                    .append("\"><h3>").append(Html.escape(m.name())).append(" version ")
                    .append(Html.escape(m.version())).append("</h3><p class=\"sub\">");
            m.nodesPerEp().forEach((ep, n) -> sb.append(Html.escape(ep)).append(": ").append(n)
                    .append(n == 1 ? " node " : " nodes ").append(" "));
            sb.append("</p>");
            if (!m.graphError().isEmpty()) {
                sb.append("<p class=\"note\">").append(Html.escape(m.graphError())).append("</p>");
            } else {
                sb.append("<div class=\"graph-box\">").append(m.graph()).append("</div>");
            }
            sb.append("</section>");
        }
    }
}
