package io.ortex.runtime.internal;

/** A kernel context that runs on a {@link RunArena}, so that a registered kernel can reuse an input's buffer. */
interface ArenaContext {
    /**
     * Gets the run's memory.
     *
     * @return the arena
     */
    RunArena arena();
}
