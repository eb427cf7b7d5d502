package io.ortex.ep.ort;

import ai.onnxruntime.OrtEpDevice;
import ai.onnxruntime.OrtException;
import ai.onnxruntime.OrtSession;
import ai.onnxruntime.OrtSession.SessionOptions.OptLevel;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * Opens the ONNX Runtime sessions of one EP instance: with its settings, its ONNX Runtime EP devices appended (one
 * call per ONNX Runtime EP, in priority order), and its plugin library's guard told. When the Ortex session writes a
 * compiled model, each session also writes ONNX Runtime's optimized model of its partition, which becomes the
 * EPContext payload. Thread safe.
 */
final class SessionMaker {
    /**
     * ONNX Runtime session entry: the folder that external-data locations of a model given as bytes are relative to.
     */
    static final String EXTERNAL_FOLDER = "session.model_external_initializers_file_folder_path";
    /** ONNX Runtime session entry: the format of the optimized model it writes. */
    static final String SAVE_FORMAT = "session.save_model_format";
    /** ONNX Runtime session entry: the format of the model it loads. */
    static final String LOAD_FORMAT = "session.load_model_format";

    private final OrtSettings settings;
    private final List<List<OrtEpDevice>> devices;
    private final SessionGuard guard;
    private final boolean writeOptimized;

    /**
     * Creates the maker.
     *
     * @param settings the EP instance's settings
     * @param devices the ONNX Runtime EP devices to append, grouped by EP
     * @param guard the guard of the plugin library the devices belong to
     * @param writeOptimized whether sessions write their optimized model (EPContext generation is on)
     */
    SessionMaker(OrtSettings settings, List<List<OrtEpDevice>> devices, SessionGuard guard, boolean writeOptimized) {
        this.settings = settings;
        this.devices = devices;
        this.guard = guard;
        this.writeOptimized = writeOptimized;
    }

    /**
     * Gets the settings.
     *
     * @return the settings
     */
    OrtSettings settings() {
        return settings;
    }

    /**
     * Opens a session for a partition given as an ONNX model.
     *
     * @param model the model's bytes
     * @param externalFolder the folder its external data is relative to, or {@code null}
     * @return the session
     * @throws OrtException when ONNX Runtime refuses the model
     */
    PartitionSession open(byte[] model, Path externalFolder) throws OrtException {
        Path optimized = null;
        guard.opening();
        boolean opened = false;
        try (OrtSession.SessionOptions o = settings.sessionOptions(settings.optimizationLevel())) {
            if (externalFolder != null) {
                o.addConfigEntry(EXTERNAL_FOLDER, externalFolder.toString());
            }
            if (writeOptimized) {
                boolean ort = settings.epContextFormat().equals("ort");
                optimized = Files.createTempFile("ortex-ort-partition-", ort ? ".ort" : ".onnx");
                o.setOptimizedModelFilePath(optimized.toString());
                o.addConfigEntry(SAVE_FORMAT, ort ? "ORT" : "ONNX");
            }
            append(o);
            OrtSession s = OrtRuntime.environment().createSession(model, o);
            byte[] bytes = optimized == null ? null : Files.readAllBytes(optimized);
            opened = true;
            return new PartitionSession(s, guard, bytes);
        } catch (IOException e) {
            throw new UncheckedIOException("writing ONNX Runtime's optimized partition to a temporary file failed", e);
        } finally {
            if (!opened) {
                guard.closed();
            }
            deleteQuietly(optimized);
        }
    }

    /**
     * Opens a session for a partition compiled earlier (an EPContext payload): no graph optimization, as ONNX Runtime
     * optimized it when it was written.
     *
     * @param payload the optimized model
     * @param format {@code ort} or {@code onnx}
     * @return the session
     * @throws OrtException when ONNX Runtime refuses the payload
     */
    PartitionSession openCompiled(byte[] payload, String format) throws OrtException {
        guard.opening();
        boolean opened = false;
        try (OrtSession.SessionOptions o = settings.sessionOptions(OptLevel.NO_OPT)) {
            if (format.equals("ort")) {
                o.addConfigEntry(LOAD_FORMAT, "ORT");
            }
            append(o);
            OrtSession s = OrtRuntime.environment().createSession(payload, o);
            opened = true;
            return new PartitionSession(s, guard, null);
        } finally {
            if (!opened) {
                guard.closed();
            }
        }
    }

    private void append(OrtSession.SessionOptions o) throws OrtException {
        for (List<OrtEpDevice> group : devices) {
            o.addExecutionProvider(group, settings.epOptions());
        }
    }

    private static void deleteQuietly(Path file) {
        if (file != null) {
            try {
                Files.deleteIfExists(file);
            } catch (IOException ignored) {
                // a temporary file; the system cleans its temporary folder
            }
        }
    }
}
