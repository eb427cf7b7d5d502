package io.ortex.serve.internal.status;

import io.ortex.api.HardwareDevice;
import io.ortex.api.NodeAssignment;
import io.ortex.serve.internal.ModelStats;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * What the status page shows, read at one moment: the HTML page and {@code /status.json} are both written from one
 * snapshot, so they always agree. Immutable.
 *
 * @param time when it was read
 * @param server the server's version
 * @param hardware the hardware devices the runtime discovered
 * @param eps one row per EP device
 * @param models one row per model folder, by name
 * @param colours the colour of each EP in the graphs
 */
public record StatusSnapshot(Instant time, String server, List<HardwareDevice> hardware, List<EpRow> eps,
                             List<ModelRow> models, EpColours colours) {
    /**
     * Copies the lists.
     *
     * @param time when it was read
     * @param server the server's version
     * @param hardware the hardware devices
     * @param eps the EP devices
     * @param models the models
     * @param colours the EP colours
     */
    public StatusSnapshot {
        hardware = List.copyOf(hardware);
        eps = List.copyOf(eps);
        models = List.copyOf(models);
    }

    /**
     * One EP device.
     *
     * @param library the EP library's registration name (empty where the environment lists none)
     * @param ep the EP's name
     * @param vendor the EP's vendor
     * @param version the EP's version (its metadata's {@code version}, or empty)
     * @param device the hardware device it runs on, in words
     * @param state {@code active} or {@code draining}
     * @param holders the ids of the sessions holding the library
     */
    public record EpRow(String library, String ep, String vendor, String version, String device, String state,
                        List<String> holders) {
        /**
         * Copies the list.
         *
         * @param library the library
         * @param ep the EP
         * @param vendor the vendor
         * @param version the version
         * @param device the device
         * @param state the state
         * @param holders the holding sessions
         */
        public EpRow {
            holders = List.copyOf(holders);
        }
    }

    /**
     * One model.
     *
     * @param name the model's name
     * @param version the version served (or the one that failed, or empty)
     * @param state {@code READY}, {@code UNAVAILABLE} or {@code UNLOADED}
     * @param reason why it is not ready, or empty
     * @param inFlight the requests running on it now
     * @param session the id of the session serving it, or empty
     * @param eps its EPs in priority order
     * @param assignment which EP runs each node of its main graph (empty when not loaded)
     * @param stats its served version's request figures, or null before its first request
     * @param graph its graph drawn, or empty when not loaded
     * @param graphError why its graph could not be drawn, or empty
     */
    public record ModelRow(String name, String version, String state, String reason, int inFlight, String session,
                           List<String> eps, List<NodeAssignment> assignment, ModelStats stats, String graph,
                           String graphError) {
        /**
         * Copies the lists.
         *
         * @param name the name
         * @param version the version
         * @param state the state
         * @param reason the reason
         * @param inFlight the running requests
         * @param session the session id
         * @param eps the EPs
         * @param assignment the node assignment
         * @param stats the figures
         * @param graph the graph's SVG
         * @param graphError why the graph is missing
         */
        public ModelRow {
            eps = List.copyOf(eps);
            assignment = List.copyOf(assignment);
        }

        /**
         * Counts the nodes each EP runs.
         *
         * @return nodes per EP, in the order of {@link #eps()}
         */
        public Map<String, Integer> nodesPerEp() {
            Map<String, Integer> counts = new java.util.LinkedHashMap<>();
            eps.forEach(ep -> counts.put(ep, 0));
            assignment.forEach(a -> counts.merge(a.ep(), 1, Integer::sum));
            return counts;
        }
    }
}
