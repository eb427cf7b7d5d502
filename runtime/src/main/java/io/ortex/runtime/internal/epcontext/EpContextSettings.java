package io.ortex.runtime.internal.epcontext;

import io.ortex.api.InvalidArgumentException;
import io.ortex.api.SessionOptions;
import java.nio.file.Path;
import java.util.Map;

/**
 * The EPContext entries of a session's configuration, read once with their defaults (the keys and defaults are the
 * constants of {@link SessionOptions}).
 *
 * @param enabled {@code ep.context_enable=1}: the session writes a compiled model
 * @param filePath {@code ep.context_file_path}, or {@code null}
 * @param embed {@code ep.context_embed_mode=1}: payloads inside the nodes
 * @param nodeNamePrefix {@code ep.context_node_name_prefix}, empty when unset
 * @param externalInitializersFile {@code ep.context_model_external_initializers_file_name}, or {@code null}
 * @param failOnSuboptimal {@code session.fail_on_suboptimal_compiled_model=1}
 * @param share {@code ep.share_ep_contexts=1}: the session joins the environment's shared context group
 * @param stopShare {@code ep.stop_share_ep_contexts=1}: the session is the last of its group and writes its binary
 */
public record EpContextSettings(boolean enabled, Path filePath, boolean embed, String nodeNamePrefix,
                                String externalInitializersFile, boolean failOnSuboptimal, boolean share,
                                boolean stopShare) {
    /**
     * Reads the settings from a session configuration.
     *
     * @param config the configuration entries
     * @return the settings
     * @throws InvalidArgumentException when a flag is not 0 or 1, or the file path is not a valid path
     */
    public static EpContextSettings of(Map<String, String> config) {
        boolean enabled = flag(config, SessionOptions.EP_CONTEXT_ENABLE, SessionOptions.EP_CONTEXT_ENABLE_DEFAULT);
        boolean embed = flag(config, SessionOptions.EP_CONTEXT_EMBED_MODE,
                SessionOptions.EP_CONTEXT_EMBED_MODE_DEFAULT);
        boolean fail = flag(config, SessionOptions.FAIL_ON_SUBOPTIMAL_COMPILED_MODEL,
                SessionOptions.FAIL_ON_SUBOPTIMAL_COMPILED_MODEL_DEFAULT);
        boolean share = flag(config, SessionOptions.EP_SHARE_EP_CONTEXTS,
                SessionOptions.EP_SHARE_EP_CONTEXTS_DEFAULT);
        boolean stop = flag(config, SessionOptions.EP_STOP_SHARE_EP_CONTEXTS,
                SessionOptions.EP_STOP_SHARE_EP_CONTEXTS_DEFAULT);
        String file = config.get(SessionOptions.EP_CONTEXT_FILE_PATH);
        Path path = null;
        if (file != null && !file.isEmpty()) {
            try {
                path = Path.of(file);
            } catch (RuntimeException e) {
                throw new InvalidArgumentException(SessionOptions.EP_CONTEXT_FILE_PATH + " '" + file
                        + "' is not a valid path");
            }
        }
        String external = config.get(SessionOptions.EP_CONTEXT_MODEL_EXTERNAL_INITIALIZERS_FILE_NAME);
        return new EpContextSettings(enabled, path, embed,
                config.getOrDefault(SessionOptions.EP_CONTEXT_NODE_NAME_PREFIX, ""),
                external == null || external.isEmpty() ? null : external, fail, share || stop, stop);
    }

    private static boolean flag(Map<String, String> config, String key, String defaultValue) {
        String v = config.getOrDefault(key, defaultValue).trim();
        if (v.equals("1")) {
            return true;
        }
        if (v.equals("0")) {
            return false;
        }
        throw new InvalidArgumentException("session option " + key + " must be 0 or 1, got '" + v + "'");
    }

    /**
     * Gets the folder against which context binary paths of a compiled model are resolved: the model's folder, or
     * for a model loaded from bytes the folder of {@code ep.context_file_path}.
     *
     * @param modelPath the model's file, or {@code null} for bytes
     * @return the folder, or {@code null} when there is none
     */
    public Path contextFolder(Path modelPath) {
        Path file = modelPath != null ? modelPath : filePath;
        if (file == null) {
            return null;
        }
        Path parent = file.toAbsolutePath().normalize().getParent();
        return parent;
    }
}
