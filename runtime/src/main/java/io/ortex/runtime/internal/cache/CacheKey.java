package io.ortex.runtime.internal.cache;

import io.ortex.api.HardwareDevice;
import io.ortex.api.OrtexException;
import io.ortex.api.SessionOptions;
import io.ortex.onnx.ExternalData;
import io.ortex.onnx.OnnxModel;
import io.ortex.onnx.proto.Onnx.AttributeProto;
import io.ortex.onnx.proto.Onnx.GraphProto;
import io.ortex.onnx.proto.Onnx.TensorProto;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Computes compile cache keys: a SHA-256 over a versioned, length-prefixed description of everything that decides
 * what a compilation produces. The model's content (its file's SHA-256, memoized by {@link FileHashes}, or its
 * serialized message when it came from bytes, then each external data file it uses, by name and SHA-256); for each EP
 * in priority order its name, vendor
 * and version (so a new EP version is a new key), its devices (type, vendor, ids, metadata) and its EP options; and
 * the session configuration entries under {@code ep.}, except those the cache sets itself ({@code ep.context_*}).
 * Not thread safe: one builder per key.
 */
public final class CacheKey {
    /** Bumped when the key's content or the entry format changes, so that old entries are never hit. */
    static final String SCHEME = "ortex-compile-cache-2";
    /** The configuration entries the cache itself controls, left out of the key. */
    private static final Set<String> OWN_KEYS = Set.of(SessionOptions.EP_CONTEXT_ENABLE,
            SessionOptions.EP_CONTEXT_EMBED_MODE, SessionOptions.EP_CONTEXT_FILE_PATH,
            SessionOptions.EP_CONTEXT_MODEL_EXTERNAL_INITIALIZERS_FILE_NAME);

    private final MessageDigest digest;

    /** Starts a key. */
    public CacheKey() {
        try {
            digest = MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("the JVM has no SHA-256", e);
        }
        text(SCHEME);
    }

    /**
     * Adds the model's content: its file (or serialized message) and its external data files.
     *
     * @param model the model
     * @param hashes the memo of file hashes
     * @return this key
     * @throws OrtexException when a file cannot be read
     */
    public CacheKey model(OnnxModel model, FileHashes hashes) {
        if (model.path().isPresent()) {
            text("file");
            text(hashes.sha256(model.path().get()));
        } else {
            text("bytes");
            bytes(model.proto().toByteArray());
        }
        Set<Path> external = new TreeSet<>();
        Path folder = model.externalFolder().orElse(null);
        if (folder != null) {
            collectExternal(model, model.proto().getGraph(), folder, external);
        }
        for (Path p : external) {
            text("external " + p.getFileName());
            text(hashes.sha256(p));
        }
        return this;
    }

    private static void collectExternal(OnnxModel model, GraphProto g, Path folder, Set<Path> out) {
        for (TensorProto t : g.getInitializerList()) {
            // data left in the model file is hashed with the file
            if (ExternalData.isExternal(t) && !model.isLeftInModelFile(t)) {
                out.add(ExternalData.locate(t, folder, model.describe()).file().toAbsolutePath().normalize());
            }
        }
        g.getNodeList().forEach(n -> {
            for (AttributeProto a : n.getAttributeList()) {
                if (a.hasG()) {
                    collectExternal(model, a.getG(), folder, out);
                }
                a.getGraphsList().forEach(sub -> collectExternal(model, sub, folder, out));
            }
        });
    }

    /**
     * Adds one EP of the session, in priority order.
     *
     * @param name the EP name
     * @param vendor the EP vendor
     * @param version the EP version
     * @param devices the devices it runs on, with their EP metadata and options
     * @return this key
     */
    public CacheKey ep(String name, String vendor, String version, Map<HardwareDevice, Map<String, String>> devices) {
        text("ep");
        text(name);
        text(vendor);
        text(version);
        for (Map.Entry<HardwareDevice, Map<String, String>> d : devices.entrySet()) {
            HardwareDevice hw = d.getKey();
            text("device " + hw.type() + " " + hw.vendorId() + " " + hw.deviceId() + " " + hw.vendor());
            map(hw.metadata());
            map(d.getValue());
        }
        return this;
    }

    /**
     * Adds the configuration entries that change compilation: those under {@code ep.} that the cache does not set.
     *
     * @param config the session configuration
     * @return this key
     */
    public CacheKey config(Map<String, String> config) {
        Map<String, String> relevant = new TreeMap<>();
        config.forEach((k, v) -> {
            if (k.startsWith("ep.") && !OWN_KEYS.contains(k)) {
                relevant.put(k, v);
            }
        });
        text("config");
        map(relevant);
        return this;
    }

    /**
     * Finishes the key.
     *
     * @return the key, 64 lowercase hexadecimal digits
     */
    public String build() {
        return HexFormat.of().formatHex(digest.digest());
    }

    private void map(Map<String, String> m) {
        Map<String, String> sorted = new TreeMap<>(m);
        text(Integer.toString(sorted.size()));
        sorted.forEach((k, v) -> {
            text(k);
            text(v);
        });
    }

    private void text(String s) {
        bytes(s.getBytes(StandardCharsets.UTF_8));
    }

    private void bytes(byte[] b) {
        length(b.length);
        digest.update(b);
    }

    private void length(long n) {
        for (int i = 0; i < 8; i++) {
            digest.update((byte) (n >>> (8 * i)));
        }
    }
}
