package io.ortex.serve.internal.status;

import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Draws a model's graph as inline SVG for the status page: a box per node, filled with the colour of the EP the
 * session runs it on, showing its operator, with its name, operator and EP in a tooltip and in {@code data-}
 * attributes (for scripts and tests); graph inputs and outputs as white rounded boxes; edges as curves from
 * producer to consumer. Every name is escaped. Stateless.
 */
final class GraphSvg {
    /** The most nodes drawn; a larger graph gets a note instead of a picture. */
    static final int MAX_NODES = 5000;
    private static final int LABEL_CHARS = 16;

    private GraphSvg() {
    }

    /**
     * Draws a graph.
     *
     * @param graph the graph
     * @param epOfNode the EP that runs each node, by node name; a node missing there is drawn as not run
     * @param colours the EPs' colours
     * @return the {@code <svg>} element, or a {@code <p>} saying why the graph is not drawn
     */
    static String draw(GraphOutline graph, Map<String, String> epOfNode, EpColours colours) {
        if (graph.nodes().size() > MAX_NODES) {
            return "<p class=\"note\">The graph has " + graph.nodes().size() + " nodes, more than the "
                    + MAX_NODES + " the page draws.</p>";
        }
        GraphLayout layout = GraphLayout.of(graph);
        List<GraphLayout.Box> boxes = layout.boxes();
        StringBuilder sb = new StringBuilder(256 * boxes.size() + 256);
        sb.append("<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"graph\" width=\"").append(layout.width())
                .append("\" height=\"").append(layout.height()).append("\" viewBox=\"0 0 ").append(layout.width())
                .append(' ').append(layout.height()).append("\" data-nodes=\"").append(graph.nodes().size())
                .append("\">");
        sb.append("<g class=\"edges\">");
        for (GraphLayout.Edge e : layout.edges()) {
            GraphLayout.Box a = boxes.get(e.from());
            GraphLayout.Box b = boxes.get(e.to());
            double x1 = a.x() + GraphLayout.BOX_WIDTH / 2.0;
            double y1 = a.y() + GraphLayout.BOX_HEIGHT;
            double x2 = b.x() + GraphLayout.BOX_WIDTH / 2.0;
            double y2 = b.y();
            double bend = Math.max(GraphLayout.GAP_Y / 2.0, (y2 - y1) / 3);
            sb.append(String.format(Locale.ROOT, "<path d=\"M%.1f %.1fC%.1f %.1f %.1f %.1f %.1f %.1f\"/>",
                    x1, y1, x1, y1 + bend, x2, y2 - bend, x2, y2));
        }
        sb.append("</g>");
        for (GraphLayout.Box box : boxes) {
            if (box.kind() == GraphLayout.Kind.NODE) {
                GraphOutline.Node n = graph.nodes().get(box.index());
                String ep = epOfNode.get(n.name());
                String op = n.domain().isEmpty() || n.domain().equals("ai.onnx") ? n.opType()
                        : n.domain() + "::" + n.opType();
                sb.append("<g class=\"node\" data-node=\"").append(Html.escape(n.name())).append("\" data-op=\"")
                        .append(Html.escape(op)).append("\" data-ep=\"").append(ep == null ? "" : Html.escape(ep))
                        .append("\"><title>").append(Html.escape(n.name())).append(" (").append(Html.escape(op))
                        .append(")\n").append(ep == null ? "not run: removed by the graph optimizer"
                                : "runs on " + Html.escape(ep)).append("</title>");
                rect(sb, box, colours.colour(ep), 3);
                label(sb, box, n.opType());
                sb.append("</g>");
            } else {
                String kind = box.kind() == GraphLayout.Kind.INPUT ? "input" : "output";
                sb.append("<g class=\"").append(kind).append("\" data-name=\"").append(Html.escape(box.label()))
                        .append("\"><title>graph ").append(kind).append(' ').append(Html.escape(box.label()))
                        .append("</title>");
                rect(sb, box, "#ffffff", 12);
                label(sb, box, box.label());
                sb.append("</g>");
            }
        }
        return sb.append("</svg>").toString();
    }

    private static void rect(StringBuilder sb, GraphLayout.Box box, String fill, int radius) {
        sb.append("<rect x=\"").append(box.x()).append("\" y=\"").append(box.y()).append("\" width=\"")
                .append(GraphLayout.BOX_WIDTH).append("\" height=\"").append(GraphLayout.BOX_HEIGHT)
                .append("\" rx=\"").append(radius).append("\" fill=\"").append(fill).append("\"/>");
    }

    private static void label(StringBuilder sb, GraphLayout.Box box, String text) {
        String shown = text.length() > LABEL_CHARS ? text.substring(0, LABEL_CHARS - 1) + "\u2026" : text;
        sb.append("<text x=\"").append(box.x() + GraphLayout.BOX_WIDTH / 2).append("\" y=\"")
                .append(box.y() + GraphLayout.BOX_HEIGHT / 2 + 4).append("\">").append(Html.escape(shown))
                .append("</text>");
    }
}
