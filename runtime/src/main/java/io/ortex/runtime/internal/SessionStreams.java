package io.ortex.runtime.internal;

import io.ortex.api.ErrorCode;
import io.ortex.api.OrtexException;
import io.ortex.api.spi.EpFactory;
import io.ortex.api.spi.ExecutionProvider;
import io.ortex.api.spi.MemoryDevice;
import io.ortex.api.spi.SyncStream;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The streams of one session: one {@link SyncStream} per non-CPU memory device of its stream-aware EPs, created by
 * the EP or, where it creates none, by its factory (ONNX Runtime's {@code OrtEp::CreateSyncStreamForDevice} falling
 * back to {@code OrtEpFactory::CreateSyncStreamForDevice}); shared by the session's runs and closed with the
 * session. A session of EPs that are not stream aware has none, and makes no stream call. Thread safe once built.
 */
final class SessionStreams implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger("io.ortex.runtime.session");
    /** A session without streams. */
    static final SessionStreams NONE = new SessionStreams(Map.of());

    private final Map<MemoryDevice, SyncStream> streams;
    private boolean closed;

    private SessionStreams(Map<MemoryDevice, SyncStream> streams) {
        this.streams = streams;
    }

    /**
     * Creates the streams of a session's EPs: for each EP whose factory is stream aware and whose memory device is not
     * host memory, one stream for that device (the first EP working in a device creates its stream).
     *
     * @param eps the session's EPs
     * @param sessionConfig the session's configuration, the options of a factory-made stream
     * @return the streams
     * @throws OrtexException when a stream-aware factory and its EP create no stream for the EP's device
     */
    static SessionStreams of(Iterable<EpInstance> eps, Map<String, String> sessionConfig) {
        Map<MemoryDevice, SyncStream> made = new LinkedHashMap<>();
        try {
            for (EpInstance inst : eps) {
                EpFactory factory = inst.binding().factory();
                ExecutionProvider ep = inst.ep();
                MemoryDevice device = ep.memoryDevice();
                if (!factory.isStreamAware() || device == null || device.equals(MemoryDevice.CPU)
                        || made.containsKey(device)) {
                    continue;
                }
                Optional<SyncStream> own = ep.createSyncStream(device);
                SyncStream stream = own != null && own.isPresent() ? own.get()
                        : factory.createSyncStream(device, sessionConfig).orElse(null);
                if (stream == null) {
                    throw new OrtexException(ErrorCode.FAIL, "EP factory " + factory.name() + " is stream aware, but"
                            + " neither EP " + ep.name() + " nor its factory created a stream for memory " + device);
                }
                made.put(device, stream);
            }
        } catch (RuntimeException e) {
            made.values().forEach(SessionStreams::closeQuietly);
            throw e;
        }
        return made.isEmpty() ? NONE : new SessionStreams(Collections.unmodifiableMap(made));
    }

    /**
     * Gets the stream of a memory device.
     *
     * @param device the device
     * @return its stream, or {@code null} for host memory and devices without one
     */
    SyncStream stream(MemoryDevice device) {
        return device == null ? null : streams.get(device);
    }

    /**
     * Tells whether the session has any stream.
     *
     * @return false for a session whose EPs are not stream aware
     */
    boolean isEmpty() {
        return streams.isEmpty();
    }

    /**
     * Gets every stream.
     *
     * @return the streams
     */
    Iterable<SyncStream> all() {
        return streams.values();
    }

    /** Waits for each stream's work and releases it; called once the session runs no more. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        for (SyncStream s : streams.values()) {
            try {
                RunStreams.drain(s);
            } catch (RuntimeException e) {
                LOG.warn("waiting for a stream of the closing session failed", e);
            }
            closeQuietly(s);
        }
    }

    private static void closeQuietly(SyncStream s) {
        try {
            s.close();
        } catch (RuntimeException e) {
            LOG.warn("releasing stream {} failed", s, e);
        }
    }
}
