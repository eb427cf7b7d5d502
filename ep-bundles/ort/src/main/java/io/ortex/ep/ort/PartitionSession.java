package io.ortex.ep.ort;

import ai.onnxruntime.NodeInfo;
import ai.onnxruntime.OrtException;
import ai.onnxruntime.OrtSession;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.LoggerFactory;

/**
 * An ONNX Runtime session running one partition, with the guard of the plugin-EP library it uses and, when the
 * session wrote one, ONNX Runtime's optimized model of the partition (the EPContext payload). Closed once.
 */
final class PartitionSession implements AutoCloseable {
    private final OrtSession session;
    private final SessionGuard guard;
    private final byte[] optimizedModel;
    private final AtomicBoolean closed = new AtomicBoolean();

    /**
     * Wraps a session that the guard was told about.
     *
     * @param session the session
     * @param guard the guard, told when it closes
     * @param optimizedModel the optimized model ONNX Runtime wrote, or {@code null}
     */
    PartitionSession(OrtSession session, SessionGuard guard, byte[] optimizedModel) {
        this.session = session;
        this.guard = guard;
        this.optimizedModel = optimizedModel;
    }

    /**
     * Gets the ONNX Runtime session.
     *
     * @return the session
     */
    OrtSession session() {
        return session;
    }

    /**
     * Gets ONNX Runtime's optimized model of the partition.
     *
     * @return the bytes, or {@code null} when the session was not asked to write it
     */
    byte[] optimizedModel() {
        return optimizedModel;
    }

    /**
     * Gets the session's input names.
     *
     * @return the names, in the model's order
     */
    List<String> inputNames() {
        return List.copyOf(session.getInputNames());
    }

    /**
     * Gets the session's output descriptions.
     *
     * @return the outputs by name
     * @throws OrtException when ONNX Runtime fails
     */
    Map<String, NodeInfo> outputInfo() throws OrtException {
        return session.getOutputInfo();
    }

    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        try {
            session.close();
        } catch (OrtException e) {
            LoggerFactory.getLogger("io.ortex.ep.ort").warn("closing an ONNX Runtime session failed: {}",
                    OrtRuntime.message(e));
        } finally {
            guard.closed();
        }
    }
}
