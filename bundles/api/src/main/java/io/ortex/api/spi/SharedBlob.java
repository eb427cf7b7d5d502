package io.ortex.api.spi;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Objects;

/**
 * A piece of an EPContext payload that several compiled partitions, of one or several models, may hold in common
 * (typically a packed weight), stored once in a shared context binary when sessions share EP contexts
 * ({@code ep.share_ep_contexts=1}).
 *
 * <p>The key is the lowercase hexadecimal SHA-256 of the bytes, so two blobs with the same key have the same content
 * and the runtime keeps one copy. An EP makes blobs with {@link #of(byte[])}, writes their {@link #key()}s into its
 * payload where it would otherwise write the bytes, and lists them in {@link EpContextPayload#sharedBlobs()}; when
 * the compiled model is loaded, {@link EpContextNode#sharedBlob(String)} gives the bytes back by key. Immutable.
 * Ortex's own: how an EP shares data (weights) across the compiled models of an {@code ep.share_ep_contexts} group,
 * which ONNX Runtime's EPs keep in their own context binaries.
 *
 * @param key the SHA-256 of {@code data}, 64 lowercase hexadecimal digits
 * @param data the bytes; copied at construction and by the accessor
 */
public record SharedBlob(String key, byte[] data) {
    /**
     * Creates a blob, checking that the key is the SHA-256 of the data.
     *
     * @param key the key
     * @param data the bytes
     * @throws IllegalArgumentException when {@code key} is not the SHA-256 of {@code data}
     */
    public SharedBlob {
        Objects.requireNonNull(key, "key");
        data = Objects.requireNonNull(data, "data").clone();
        String actual = keyOf(data);
        if (!actual.equals(key)) {
            throw new IllegalArgumentException("shared blob key " + key + " is not the SHA-256 of its "
                    + data.length + " bytes (" + actual + ")");
        }
    }

    /**
     * Creates a blob keyed by the SHA-256 of its bytes.
     * Ortex's own: how an EP shares data (weights) across the compiled models of an {@code ep.share_ep_contexts} group,
     * which ONNX Runtime's EPs keep in their own context binaries.
     *
     * @param data the bytes
     * @return the blob
     */
    public static SharedBlob of(byte[] data) {
        return new SharedBlob(keyOf(data), data);
    }

    /**
     * Computes the key of some bytes: their SHA-256 in lowercase hexadecimal.
     * Ortex's own: how an EP shares data (weights) across the compiled models of an {@code ep.share_ep_contexts} group,
     * which ONNX Runtime's EPs keep in their own context binaries.
     *
     * @param data the bytes
     * @return the key
     */
    public static String keyOf(byte[] data) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(data));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("the JVM has no SHA-256", e);
        }
    }

    /**
     * Tells whether a string has the form of a key (64 lowercase hexadecimal digits).
     * Ortex's own: how an EP shares data (weights) across the compiled models of an {@code ep.share_ep_contexts} group,
     * which ONNX Runtime's EPs keep in their own context binaries.
     *
     * @param key the string
     * @return true when it could be a key
     */
    public static boolean isKey(String key) {
        if (key == null || key.length() != 64) {
            return false;
        }
        for (byte c : key.getBytes(StandardCharsets.US_ASCII)) {
            if (!(c >= '0' && c <= '9' || c >= 'a' && c <= 'f')) {
                return false;
            }
        }
        return true;
    }

    /**
     * Gets a copy of the bytes.
     * Ortex's own: how an EP shares data (weights) across the compiled models of an {@code ep.share_ep_contexts} group,
     * which ONNX Runtime's EPs keep in their own context binaries.
     *
     * @return the bytes
     */
    @Override
    public byte[] data() {
        return data.clone();
    }

    /**
     * Gets the size without copying.
     * Ortex's own: how an EP shares data (weights) across the compiled models of an {@code ep.share_ep_contexts} group,
     * which ONNX Runtime's EPs keep in their own context binaries.
     *
     * @return the number of bytes
     */
    public int size() {
        return data.length;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof SharedBlob b && key.equals(b.key);
    }

    @Override
    public int hashCode() {
        return key.hashCode();
    }

    @Override
    public String toString() {
        return "SharedBlob[" + key.substring(0, 12) + "..., " + data.length + " bytes]";
    }
}
