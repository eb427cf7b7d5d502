package io.ortex.runtime.internal;

import io.ortex.api.HardwareDevice;
import io.ortex.api.OrtexException;
import io.ortex.api.SessionOptions;
import io.ortex.api.spi.EpFactory;
import io.ortex.api.spi.SupportedDevice;
import io.ortex.onnx.ModelReader;
import io.ortex.onnx.OnnxModel;
import io.ortex.onnx.proto.Onnx.ModelProto;
import io.ortex.runtime.internal.cache.CacheKey;
import io.ortex.runtime.internal.cache.CompileCache;
import io.ortex.runtime.internal.cache.FileHashes;
import io.ortex.runtime.internal.epcontext.EpContextGeneration;
import io.ortex.runtime.internal.epcontext.EpContextOutput;
import io.ortex.runtime.internal.epcontext.EpContextSettings;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Session creation through the compile cache: computes the key of a model and the session's EPs (the model file's
 * hash memoized), loads the cached compiled model on a hit (its initializers that the source holds taken from the
 * source, already in memory), and on a miss (or an entry that cannot be used) compiles with EPContext generation
 * into memory, payloads embedded, and stores the result without those initializers. Stateless; the cache itself is
 * safe for concurrent use.
 */
final class CachedCompilation {
    private static final Logger LOG = LoggerFactory.getLogger("io.ortex.runtime.cache");

    /** Creates a session from a model, a configuration and an optional generation plan. */
    @FunctionalInterface
    interface Opener {
        /**
         * Creates the session.
         *
         * @param model the model
         * @param config the session configuration
         * @param generation the generation plan, or {@code null}
         * @return the session
         */
        InferenceSession open(OnnxModel model, Map<String, String> config, EpContextGeneration generation);
    }

    private CachedCompilation() {
    }

    /**
     * Tells whether a session may go through the cache: it neither generates a compiled model itself nor shares EP
     * contexts, and its model is not already compiled.
     *
     * @param model the model
     * @param config the session configuration
     * @return true when the cache applies
     */
    static boolean applies(OnnxModel model, Map<String, String> config) {
        EpContextSettings s = EpContextSettings.of(config);
        return !s.enabled() && !s.share() && !EpContextGeneration.isCompiled(model);
    }

    /**
     * Computes the key of a session's compilation.
     *
     * @param model the model
     * @param config the session configuration
     * @param bindings the session's EPs in priority order
     * @param hashes the memo of file hashes
     * @return the key
     */
    static String key(OnnxModel model, Map<String, String> config, List<EpBinding> bindings, FileHashes hashes) {
        CacheKey key = new CacheKey().model(model, hashes);
        for (EpBinding b : bindings) {
            EpFactory f = b.factory();
            Map<HardwareDevice, Map<String, String>> devices = new LinkedHashMap<>();
            for (SupportedDevice d : b.devices()) {
                Map<String, String> both = new LinkedHashMap<>();
                d.epMetadata().forEach((k, v) -> both.put("metadata." + k, v));
                d.epOptions().forEach((k, v) -> both.put("option." + k, v));
                devices.put(d.device(), both);
            }
            key.ep(f.name(), f.vendor(), f.version(), devices);
        }
        return key.config(config).build();
    }

    /**
     * Opens a session through the cache.
     *
     * @param cache the cache
     * @param model the source model
     * @param config the session configuration
     * @param bindings the session's EPs
     * @param opener creates the session
     * @return the session, from the cached compiled model or from the source
     */
    static InferenceSession open(CompileCache cache, OnnxModel model, Map<String, String> config,
                                 List<EpBinding> bindings, Opener opener) {
        String key = key(model, config, bindings, new FileHashes(cache.folder()));
        ModelProto hit = cache.load(key, model.proto());
        if (hit != null) {
            try {
                InferenceSession s = opener.open(ModelReader.rewrite(model, hit), config, null);
                LOG.info("compile cache hit for {} (key {})", model.describe(), key);
                return s;
            } catch (OrtexException e) {
                LOG.warn("compile cache: entry {} for {} cannot be loaded ({}); deleting it and compiling again",
                        cache.entry(key), model.describe(), e.getMessage());
                cache.remove(key);
            }
        }
        Map<String, String> generating = new LinkedHashMap<>(config);
        generating.put(SessionOptions.EP_CONTEXT_ENABLE, "1");
        generating.put(SessionOptions.EP_CONTEXT_EMBED_MODE, "1");
        generating.remove(SessionOptions.EP_CONTEXT_FILE_PATH);
        generating.remove(SessionOptions.EP_CONTEXT_MODEL_EXTERNAL_INITIALIZERS_FILE_NAME);
        EpContextGeneration plan = new EpContextGeneration(EpContextSettings.of(generating),
                EpContextOutput.toBytes(null), false, EpContextGeneration.WhenNothingCompiled.WRITE, null);
        InferenceSession s = opener.open(model, generating, plan);
        try {
            cache.store(key, plan.output().bytes(), model.proto());
            LOG.info("compile cache miss for {} (key {}): compiled and stored in {}", model.describe(), key,
                    cache.entry(key));
        } catch (RuntimeException e) {
            LOG.warn("compile cache: cannot store the compiled {} in {}: {}", model.describe(), cache.folder(),
                    e.getMessage());
        }
        return s;
    }
}
