package io.ortex.serve.internal.status;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Lays a graph out top to bottom in layers, as the status page draws it: the graph inputs on top, each node one
 * layer below the lowest node it reads from (a node that reads nothing, such as a {@code Constant}, sits just above
 * its first reader), the graph outputs below their producers; within a layer, nodes are ordered by the mean
 * position of their neighbours (a few sweeps down and up, the usual crossing reduction) and each layer is centred.
 * Linear in the nodes and edges per sweep, so a graph of thousands of nodes lays out in milliseconds. Immutable.
 */
final class GraphLayout {
    /** A box's width. */
    static final int BOX_WIDTH = 112;
    /** A box's height. */
    static final int BOX_HEIGHT = 26;
    /** The space between two boxes of a layer. */
    static final int GAP_X = 14;
    /** The space between two layers. */
    static final int GAP_Y = 26;
    /** The margin around the drawing. */
    static final int MARGIN = 10;
    private static final int SWEEPS = 4;

    /** What a vertex stands for. */
    enum Kind {
        /** A graph input. */
        INPUT,
        /** A node. */
        NODE,
        /** A graph output. */
        OUTPUT
    }

    /**
     * A vertex placed: its box's top-left corner.
     *
     * @param kind what it stands for
     * @param index the node's index in the outline, or the input's or output's
     * @param label the graph input's or output's name, or the node's name
     * @param x the left edge
     * @param y the top edge
     */
    record Box(Kind kind, int index, String label, int x, int y) {
    }

    /**
     * An edge from the bottom of one box to the top of another.
     *
     * @param from the producer's box index
     * @param to the consumer's box index
     */
    record Edge(int from, int to) {
    }

    private final List<Box> boxes;
    private final List<Edge> edges;
    private final int width;
    private final int height;

    private GraphLayout(List<Box> boxes, List<Edge> edges, int width, int height) {
        this.boxes = boxes;
        this.edges = edges;
        this.width = width;
        this.height = height;
    }

    /**
     * Lays a graph out.
     *
     * @param graph the graph
     * @return the layout
     */
    static GraphLayout of(GraphOutline graph) {
        List<Kind> kinds = new ArrayList<>();
        List<Integer> indexes = new ArrayList<>();
        List<String> labels = new ArrayList<>();
        Map<String, Integer> producer = new HashMap<>();
        for (int i = 0; i < graph.inputs().size(); i++) {
            producer.put(graph.inputs().get(i), kinds.size());
            add(kinds, indexes, labels, Kind.INPUT, i, graph.inputs().get(i));
        }
        for (int i = 0; i < graph.nodes().size(); i++) {
            GraphOutline.Node n = graph.nodes().get(i);
            for (String out : n.outputs()) {
                producer.putIfAbsent(out, kinds.size());
            }
            add(kinds, indexes, labels, Kind.NODE, i, n.name());
        }
        List<Edge> edges = new ArrayList<>();
        for (int i = 0; i < graph.nodes().size(); i++) {
            int to = graph.inputs().size() + i;
            for (String in : graph.nodes().get(i).inputs()) {
                Integer from = producer.get(in);
                if (from != null && from != to) {
                    edges.add(new Edge(from, to));
                }
            }
        }
        for (int i = 0; i < graph.outputs().size(); i++) {
            Integer from = producer.get(graph.outputs().get(i));
            int to = kinds.size();
            add(kinds, indexes, labels, Kind.OUTPUT, i, graph.outputs().get(i));
            if (from != null) {
                edges.add(new Edge(from, to));
            }
        }
        List<Edge> unique = edges.stream().distinct().toList();
        int[] layer = layers(kinds, unique);
        return place(kinds, indexes, labels, unique, layer);
    }

    private static void add(List<Kind> kinds, List<Integer> indexes, List<String> labels, Kind k, int i, String l) {
        kinds.add(k);
        indexes.add(i);
        labels.add(l);
    }

    /** Longest path from the top in topological order, then sources pulled down to just above their first reader. */
    private static int[] layers(List<Kind> kinds, List<Edge> edges) {
        int n = kinds.size();
        List<List<Integer>> succ = new ArrayList<>();
        List<List<Integer>> pred = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            succ.add(new ArrayList<>());
            pred.add(new ArrayList<>());
        }
        int[] indegree = new int[n];
        for (Edge e : edges) {
            succ.get(e.from()).add(e.to());
            pred.get(e.to()).add(e.from());
            indegree[e.to()]++;
        }
        int[] layer = new int[n];
        boolean[] done = new boolean[n];
        Deque<Integer> ready = new ArrayDeque<>();
        for (int i = 0; i < n; i++) {
            if (indegree[i] == 0) {
                ready.add(i);
            }
        }
        List<Integer> order = new ArrayList<>();
        while (order.size() < n) {
            if (ready.isEmpty()) {  // a cycle (an invalid model): break it at the first vertex not placed
                for (int i = 0; i < n; i++) {
                    if (!done[i]) {
                        ready.add(i);
                        indegree[i] = 0;
                        break;
                    }
                }
            }
            int v = ready.poll();
            if (done[v]) {
                continue;
            }
            done[v] = true;
            order.add(v);
            for (int p : pred.get(v)) {
                if (done[p]) {
                    layer[v] = Math.max(layer[v], layer[p] + 1);
                }
            }
            for (int s : succ.get(v)) {
                if (--indegree[s] == 0) {
                    ready.add(s);
                }
            }
        }
        for (int k = order.size() - 1; k >= 0; k--) {
            int v = order.get(k);
            if (kinds.get(v) == Kind.NODE && pred.get(v).isEmpty() && !succ.get(v).isEmpty()) {
                int lowest = Integer.MAX_VALUE;
                for (int s : succ.get(v)) {
                    lowest = Math.min(lowest, layer[s]);
                }
                layer[v] = Math.max(layer[v], lowest - 1);
            }
        }
        return layer;
    }

    private static GraphLayout place(List<Kind> kinds, List<Integer> indexes, List<String> labels, List<Edge> edges,
            int[] layer) {
        int n = kinds.size();
        int depth = Arrays.stream(layer).max().orElse(-1) + 1;
        List<List<Integer>> rows = new ArrayList<>();
        for (int i = 0; i < depth; i++) {
            rows.add(new ArrayList<>());
        }
        for (int v = 0; v < n; v++) {
            rows.get(layer[v]).add(v);
        }
        List<List<Integer>> up = new ArrayList<>();
        List<List<Integer>> down = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            up.add(new ArrayList<>());
            down.add(new ArrayList<>());
        }
        for (Edge e : edges) {
            down.get(e.from()).add(e.to());
            up.get(e.to()).add(e.from());
        }
        double[] position = new double[n];
        for (List<Integer> row : rows) {
            for (int i = 0; i < row.size(); i++) {
                position[row.get(i)] = i - (row.size() - 1) / 2.0;
            }
        }
        for (int sweep = 0; sweep < SWEEPS; sweep++) {
            for (int r = 1; r < depth; r++) {
                order(rows.get(r), up, position);
            }
            for (int r = depth - 2; r >= 0; r--) {
                order(rows.get(r), down, position);
            }
        }
        int widest = rows.stream().mapToInt(List::size).max().orElse(0);
        int width = 2 * MARGIN + Math.max(1, widest) * (BOX_WIDTH + GAP_X) - GAP_X;
        int height = 2 * MARGIN + Math.max(1, depth) * (BOX_HEIGHT + GAP_Y) - GAP_Y;
        Box[] boxes = new Box[n];
        for (int r = 0; r < depth; r++) {
            List<Integer> row = rows.get(r);
            int rowWidth = row.size() * (BOX_WIDTH + GAP_X) - GAP_X;
            int left = (width - rowWidth) / 2;
            for (int i = 0; i < row.size(); i++) {
                int v = row.get(i);
                boxes[v] = new Box(kinds.get(v), indexes.get(v), labels.get(v), left + i * (BOX_WIDTH + GAP_X),
                        MARGIN + r * (BOX_HEIGHT + GAP_Y));
            }
        }
        return new GraphLayout(List.of(boxes), List.copyOf(edges), width, height);
    }

    /** Orders a row by its vertices' mean neighbour position (those without neighbours keep theirs), then spreads. */
    private static void order(List<Integer> row, List<List<Integer>> neighbours, double[] position) {
        Map<Integer, Double> key = new HashMap<>();
        for (int v : row) {
            List<Integer> ns = neighbours.get(v);
            key.put(v, ns.isEmpty() ? position[v] : ns.stream().mapToDouble(u -> position[u]).average().orElse(0));
        }
        row.sort(Comparator.comparingDouble(key::get));
        for (int i = 0; i < row.size(); i++) {
            position[row.get(i)] = i - (row.size() - 1) / 2.0;
        }
    }

    /**
     * Gets the boxes: the graph inputs, then the nodes in outline order, then the graph outputs.
     *
     * @return the boxes
     */
    List<Box> boxes() {
        return boxes;
    }

    /**
     * Gets the edges, between box indexes.
     *
     * @return the edges
     */
    List<Edge> edges() {
        return edges;
    }

    /**
     * Gets the drawing's width.
     *
     * @return the width in pixels
     */
    int width() {
        return width;
    }

    /**
     * Gets the drawing's height.
     *
     * @return the height in pixels
     */
    int height() {
        return height;
    }
}
