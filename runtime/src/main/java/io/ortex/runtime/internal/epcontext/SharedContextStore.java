package io.ortex.runtime.internal.epcontext;

import java.nio.file.Path;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The environment-level store of EP contexts shared between sessions ({@code ep.share_ep_contexts=1}): it holds the
 * open {@link SharedContextGroup}, which the first sharing session creates and names after its compiled model
 * ({@code <stem>_shared.bin}), later sharing sessions join, and the session that sets
 * {@code ep.stop_share_ep_contexts=1} flushes to disk and closes. One group is open at a time, as in ONNX Runtime.
 * A group still open when the environment closes is finished then ({@link #finishOpenGroup()}): its models were
 * written pointing at its binary, so the binary is written too rather than left missing. Thread safe.
 */
public final class SharedContextStore {
    private static final Logger LOG = LoggerFactory.getLogger("io.ortex.runtime.epcontext");

    private SharedContextGroup open;

    /** Creates an empty store. */
    public SharedContextStore() {
    }

    /**
     * Gets the open group, creating it when there is none.
     *
     * @param folder the folder of the compiled model that joins
     * @param stem the compiled model's file name without its extension, naming a new group's binary
     * @return the group; its folder is checked against {@code folder}
     */
    public synchronized SharedContextGroup join(Path folder, String stem) {
        if (open == null) {
            open = new SharedContextGroup(folder, stem + "_shared.bin");
        }
        open.checkFolder(folder);
        return open;
    }

    /**
     * Writes a group's binary and closes it, if it is still the open group. A group that holds nothing (no EP of its
     * sessions compiled a node) writes no file: none of its models names one.
     *
     * @param group the group
     * @return the file written, or {@code null} when the group was empty
     */
    public synchronized Path finish(SharedContextGroup group) {
        Path file = group.size() == 0 ? null : group.flush();
        if (open == group) {
            open = null;
        }
        return file;
    }

    /**
     * Finishes the open group, if any, when the environment closes: writes its binary, which the group's compiled
     * models already name, and logs that the group was closed without {@code ep.stop_share_ep_contexts=1}. When the
     * binary cannot be written, logs a warning naming it: the group's models then point at a missing file.
     *
     * @return the binary written, or {@code null} when no group was open or it could not be written
     */
    public synchronized Path finishOpenGroup() {
        SharedContextGroup group = open;
        open = null;
        if (group == null || group.size() == 0) {
            return null;
        }
        try {
            Path file = group.flush();
            LOG.info("the shared EP context group of {} was still open when the environment closed (no session set "
                    + "ep.stop_share_ep_contexts=1): its {} entries were written then", file, group.size());
            return file;
        } catch (RuntimeException e) {
            LOG.warn("the shared EP context group of {} was still open when the environment closed and its binary "
                    + "could not be written ({}): the compiled models of the group name a file that does not exist",
                    group.file(), e.getMessage());
            return null;
        }
    }
}
