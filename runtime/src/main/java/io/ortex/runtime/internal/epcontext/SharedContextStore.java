package io.ortex.runtime.internal.epcontext;

import java.nio.file.Path;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The environment-level store of EP contexts shared between sessions ({@code ep.share_ep_contexts=1}): it holds the
 * open {@link SharedContextGroup}, which the first sharing session creates and names after its compiled model
 * ({@code <stem>_shared.bin}), later sharing sessions join, and the session that sets
 * {@code ep.stop_share_ep_contexts=1} flushes to disk and closes. One group is open at a time, as in ONNX Runtime.
 * Thread safe.
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
     * Writes a group's binary and closes it, if it is still the open group.
     *
     * @param group the group
     * @return the file written
     */
    public synchronized Path finish(SharedContextGroup group) {
        Path file = group.flush();
        if (open == group) {
            open = null;
        }
        return file;
    }

    /** Drops the open group, logging when it held entries that were never written (the environment closes). */
    public synchronized void discard() {
        if (open != null && open.size() > 0) {
            LOG.warn("the shared EP context group of {} was never finished (no session set "
                    + "ep.stop_share_ep_contexts=1); its {} entries are not written", open.file(), open.size());
        }
        open = null;
    }
}
