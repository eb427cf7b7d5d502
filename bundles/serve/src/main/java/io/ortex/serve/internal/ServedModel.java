package io.ortex.serve.internal;

import io.ortex.api.Session;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One loaded version of a model: its session, counted by reference. The repository holds one reference while the
 * version is current; each request holds one while it runs. The session closes when the last reference goes, so a
 * version that is replaced or unloaded finishes its requests first, those waiting in its batching queue included.
 * Thread safe.
 */
public final class ServedModel {
    private static final Logger LOG = LoggerFactory.getLogger("io.ortex.serve.models");

    private final String name;
    private final String version;
    private final Session session;
    private final Batcher batcher;
    private final java.util.List<String> executionProviders;
    private final AtomicInteger references = new AtomicInteger(1);

    /**
     * Creates a loaded version holding the repository's reference, without batching.
     *
     * @param name the model's name
     * @param version the version folder's name
     * @param session the session, which this object then owns
     */
    ServedModel(String name, String version, Session session) {
        this(name, version, session, ModelConfig.Batching.OFF);
    }

    /**
     * Creates a loaded version holding the repository's reference, batching its requests when the settings turn
     * batching on and the model can be batched (else a warning says why not).
     *
     * @param name the model's name
     * @param version the version folder's name
     * @param session the session, which this object then owns
     * @param batching the batching settings
     */
    ServedModel(String name, String version, Session session, ModelConfig.Batching batching) {
        this.name = name;
        this.version = version;
        this.session = session;
        this.executionProviders = java.util.List.copyOf(session.executionProviders());
        String whyNot = batching.enabled() ? Batcher.whyNotBatchable(session) : null;
        if (whyNot != null) {
            LOG.warn("model {} version {} is not batched ({} {}): {}", io.ortex.api.Names.quote(name), version,
                    ModelConfig.MAX_BATCH_SIZE, batching.maxBatchSize(), whyNot);
        }
        this.batcher = batching.enabled() && whyNot == null ? new Batcher(name, version, session, batching) : null;
    }

    /**
     * Gets the model's name.
     *
     * @return the name
     */
    public String name() {
        return name;
    }

    /**
     * Gets the version.
     *
     * @return the version folder's name
     */
    public String version() {
        return version;
    }

    /**
     * Gets the session; valid while a reference is held.
     *
     * @return the session
     */
    public Session session() {
        return session;
    }

    /**
     * Gets the EPs the session runs on, as they were when it was created (readable after it closed).
     *
     * @return the EP names in priority order
     */
    public java.util.List<String> executionProviders() {
        return executionProviders;
    }

    /**
     * Gets the batcher of this version.
     *
     * @return the batcher, or null when requests run one by one
     */
    Batcher batcher() {
        return batcher;
    }

    /**
     * Counts the requests running on this version now.
     *
     * @return the references beyond the repository's
     */
    public int inFlight() {
        return Math.max(0, references.get() - 1);
    }

    /**
     * Counts the requests waiting in this version's batching queue now (a part of {@link #inFlight()}).
     *
     * @return the queue's length, 0 when requests are not batched
     */
    public int queued() {
        Batcher b = batcher;
        return b == null ? 0 : b.queued();
    }

    /**
     * Tells whether the session has closed: the version was replaced or unloaded and its last request ended.
     *
     * @return true when closed
     */
    public boolean closed() {
        return references.get() == 0;
    }

    /**
     * Takes a reference for a request, unless the version has closed.
     *
     * @return true when taken: call {@link #release()} when the request ends
     */
    boolean acquire() {
        while (true) {
            int r = references.get();
            if (r == 0) {
                return false;
            }
            if (references.compareAndSet(r, r + 1)) {
                return true;
            }
        }
    }

    /** Gives a reference back; the last one closes the session. */
    void release() {
        if (references.decrementAndGet() == 0) {
            if (batcher != null) {
                batcher.close();
            }
            try {
                session.close();
                LOG.info("model {} version {} closed", io.ortex.api.Names.quote(name), version);
            } catch (RuntimeException e) {
                LOG.warn("model {} version {}: closing its session failed: {}", io.ortex.api.Names.quote(name),
                        version, io.ortex.api.Names.oneLine(e.getMessage()));
            }
        }
    }
}
