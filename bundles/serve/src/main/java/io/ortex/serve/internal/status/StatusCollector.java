package io.ortex.serve.internal.status;

import io.ortex.api.Environment;
import io.ortex.api.EpDevice;
import io.ortex.api.EpLibraryInfo;
import io.ortex.api.HardwareDevice;
import io.ortex.api.NodeAssignment;
import io.ortex.api.Session;
import io.ortex.serve.internal.Metrics;
import io.ortex.serve.internal.ModelRepository;
import io.ortex.serve.internal.ModelStats;
import io.ortex.serve.internal.ProtocolException;
import io.ortex.serve.internal.ServedModel;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Reads a {@link StatusSnapshot} from the runtime, the model repository and the metrics. The graph of each loaded
 * version is read from its model file once and kept, with its last drawing, while that version's session serves (by
 * session id). Thread safe: snapshots may be taken concurrently, with requests running.
 */
public final class StatusCollector {
    private final Environment environment;
    private final ModelRepository repository;
    private final Metrics metrics;
    private final String server;
    private final Map<String, Outline> outlines = new ConcurrentHashMap<>();

    /**
     * Creates a collector.
     *
     * @param environment the runtime
     * @param repository the models
     * @param metrics the request figures
     * @param server the server's version
     */
    public StatusCollector(Environment environment, ModelRepository repository, Metrics metrics, String server) {
        this.environment = environment;
        this.repository = repository;
        this.metrics = metrics;
        this.server = server;
    }

    /** A graph read for one session, or why it could not be, with its last drawing and the colours it used. */
    private static final class Outline {
        final GraphOutline graph;
        final String error;
        private String colours = "";
        private String svg = "";

        Outline(GraphOutline graph, String error) {
            this.graph = graph;
            this.error = error;
        }

        /** Draws the graph, or gives the last drawing when the colours and the assignment are the same. */
        synchronized String draw(List<NodeAssignment> assignment, EpColours epColours) {
            String key = epColours.all().toString();
            if (svg.isEmpty() || !key.equals(colours)) {  // a session's assignment never changes
                Map<String, String> epOfNode = new HashMap<>();
                assignment.forEach(a -> epOfNode.put(a.node(), a.ep()));
                svg = GraphSvg.draw(graph, epOfNode, epColours);
                colours = key;
            }
            return svg;
        }
    }

    /**
     * Reads the status now, with the graphs drawn.
     *
     * @return the snapshot
     */
    public StatusSnapshot snapshot() {
        return snapshot(true);
    }

    /**
     * Reads the status now.
     *
     * @param graphs whether to draw the graphs (the JSON form does not show them)
     * @return the snapshot; without graphs, each model's {@link StatusSnapshot.ModelRow#graph()} is empty
     */
    public StatusSnapshot snapshot(boolean graphs) {
        List<StatusSnapshot.EpRow> eps = epRows();
        Map<String, ModelStats> stats = new HashMap<>();
        for (ModelStats s : metrics.snapshot()) {
            stats.put(s.model() + "\n" + s.version(), s);
        }
        List<Loaded> loaded = new ArrayList<>();
        Set<String> live = new HashSet<>();
        for (ModelRepository.Entry e : repository.index()) {
            loaded.add(load(e, live));
        }
        outlines.keySet().retainAll(live);
        Set<String> epNames = new LinkedHashSet<>();
        eps.forEach(r -> epNames.add(r.ep()));
        loaded.forEach(l -> epNames.addAll(l.entry.executionProviders()));
        EpColours colours = new EpColours(new ArrayList<>(epNames));
        List<StatusSnapshot.ModelRow> rows = new ArrayList<>();
        for (Loaded l : loaded) {
            ModelRepository.Entry e = l.entry;
            String graph = "";
            String graphError = "";
            if (l.outline != null && l.outline.graph != null) {
                graph = graphs ? l.outline.draw(l.assignment, colours) : "";
            } else if (l.outline != null) {
                graphError = l.outline.error;
            }
            rows.add(new StatusSnapshot.ModelRow(e.name(), e.version(), e.state(), e.reason(), e.inFlight(),
                    l.session, e.executionProviders(), l.assignment, stats.get(e.name() + "\n" + e.version()),
                    graph, graphError));
        }
        return new StatusSnapshot(Instant.now(), server, environment.hardwareDevices(), eps, rows, colours);
    }

    /** A model of the index with what its served version's session says. */
    private record Loaded(ModelRepository.Entry entry, String session, List<NodeAssignment> assignment,
                          Outline outline) {
    }

    private Loaded load(ModelRepository.Entry e, Set<String> live) {
        if (!e.state().equals("READY")) {
            return new Loaded(e, "", List.of(), null);
        }
        ServedModel m;
        try {
            m = repository.acquire(e.name(), e.version());
        } catch (ProtocolException replacedMeanwhile) {
            return new Loaded(e, "", List.of(), null);
        }
        try {
            Session s = m.session();
            live.add(s.id());
            Path file = repository.root().resolve(e.name()).resolve(e.version()).resolve(ModelRepository.MODEL_FILE);
            Outline outline = outlines.computeIfAbsent(s.id(), id -> read(file));
            return new Loaded(e, s.id(), s.assignment(), outline);
        } finally {
            repository.release(m);
        }
    }

    private static Outline read(Path file) {
        try {
            return new Outline(GraphOutline.read(file), "");
        } catch (IOException | RuntimeException e) {
            return new Outline(null, "the graph could not be read: " + e.getMessage());
        }
    }

    private List<StatusSnapshot.EpRow> epRows() {
        List<StatusSnapshot.EpRow> rows = new ArrayList<>();
        Set<EpDevice> listed = new HashSet<>();
        for (EpLibraryInfo lib : environment.epLibraries()) {
            for (EpDevice d : lib.devices()) {
                listed.add(d);
                rows.add(row(lib.name(), d, lib.state(), lib.holders()));
            }
        }
        for (EpDevice d : environment.epDevices()) {
            if (!listed.contains(d)) {
                rows.add(row("", d, EpLibraryInfo.State.ACTIVE, List.of()));
            }
        }
        return rows;
    }

    private static StatusSnapshot.EpRow row(String library, EpDevice d, EpLibraryInfo.State state,
            List<String> holders) {
        return new StatusSnapshot.EpRow(library, d.epName(), d.epVendor(), d.epMetadata().getOrDefault("version", ""),
                device(d.device()), state.name().toLowerCase(Locale.ROOT), holders);
    }

    /**
     * Describes a hardware device in words: type, vendor, PCI ids, bus and virtual mark where known.
     *
     * @param d the device
     * @return the description
     */
    static String device(HardwareDevice d) {
        String bus = d.metadata().get("pci_bus_id");
        return d.type() + " " + d.vendor() + String.format(Locale.ROOT, " %04x:%04x", d.vendorId(), d.deviceId())
                + (bus == null ? "" : " " + bus) + (d.isVirtual() ? " (virtual)" : "");
    }
}
