package io.ortex.runtime.internal;

import io.ortex.api.Tensor;
import io.ortex.api.spi.PrePackedWeight;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * The pre-packed weights that the sessions of one environment share ({@code session.use_env_allocators=1}), ONNX
 * Runtime's {@code PrepackedWeightsContainer}: each pack is kept under its kernel (EP, definition, input position)
 * and the SHA-256 of the weight's content, counted by the kernels that use it, and released when the last of them is
 * closed. Thread safe; packing happens under the store's lock, so two sessions created at once pack a weight once.
 */
final class PrePackStore {
    private final Map<String, Shared> packs = new HashMap<>();
    private long packed;

    /** A pack and how many kernels use it. */
    private static final class Shared {
        final PrePackedWeight weight;
        int users;

        Shared(PrePackedWeight weight) {
            this.weight = weight;
        }
    }

    /**
     * Gets the shared pack of a key, making it with {@code pack} when no session holds one; counts one more user.
     *
     * @param key the kernel and the weight's content, from {@link #key}
     * @param pack makes the pack (the kernel's {@code prePackWeight})
     * @return the pack, or empty when the kernel does not pack this weight (nothing is then held)
     */
    synchronized Optional<PrePackedWeight> acquire(String key, Supplier<Optional<PrePackedWeight>> pack) {
        Shared s = packs.get(key);
        if (s == null) {
            Optional<PrePackedWeight> made = pack.get();
            if (made == null || made.isEmpty()) {
                return Optional.empty();
            }
            packed++;
            s = new Shared(made.get());
            packs.put(key, s);
        }
        s.users++;
        return Optional.of(s.weight);
    }

    /**
     * Counts one user fewer of a key, releasing the pack when none is left.
     *
     * @param key the key given to {@link #acquire}
     */
    void release(String key) {
        PrePackedWeight gone = null;
        synchronized (this) {
            Shared s = packs.get(key);
            if (s != null && --s.users == 0) {
                packs.remove(key);
                gone = s.weight;
            }
        }
        if (gone != null) {
            gone.release();
        }
    }

    /**
     * Gets how many packs are held now.
     *
     * @return the count
     */
    synchronized int size() {
        return packs.size();
    }

    /**
     * Gets how many packs were made since the store was created.
     *
     * @return the count
     */
    synchronized long packsMade() {
        return packed;
    }

    /**
     * Makes the key of one weight for one kernel.
     *
     * @param kernel the EP, the definition and the input position
     * @param weight the constant
     * @return the key, or {@code null} when the weight's content cannot be hashed (strings)
     */
    static String key(String kernel, Tensor weight) {
        MessageDigest sha;
        try {
            sha = MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JVM", e);
        }
        sha.update((weight.type() + Tensor.shapeString(weight.shape())).getBytes(StandardCharsets.UTF_8));
        Object data = weight.data();
        if (data instanceof byte[] b) {
            sha.update(b);
        } else if (data instanceof boolean[] z) {
            for (boolean v : z) {
                sha.update((byte) (v ? 1 : 0));
            }
        } else if (!update(sha, data)) {
            return null;
        }
        return kernel + '|' + HexFormat.of().formatHex(sha.digest());
    }

    private static boolean update(MessageDigest sha, Object data) {
        ByteBuffer buf;
        if (data instanceof float[] f) {
            buf = ByteBuffer.allocate(f.length * 4).order(ByteOrder.LITTLE_ENDIAN);
            buf.asFloatBuffer().put(f);
        } else if (data instanceof double[] d) {
            buf = ByteBuffer.allocate(d.length * 8).order(ByteOrder.LITTLE_ENDIAN);
            buf.asDoubleBuffer().put(d);
        } else if (data instanceof long[] l) {
            buf = ByteBuffer.allocate(l.length * 8).order(ByteOrder.LITTLE_ENDIAN);
            buf.asLongBuffer().put(l);
        } else if (data instanceof int[] i) {
            buf = ByteBuffer.allocate(i.length * 4).order(ByteOrder.LITTLE_ENDIAN);
            buf.asIntBuffer().put(i);
        } else if (data instanceof short[] s) {
            buf = ByteBuffer.allocate(s.length * 2).order(ByteOrder.LITTLE_ENDIAN);
            buf.asShortBuffer().put(s);
        } else {
            return false;
        }
        sha.update(buf.array());
        return true;
    }
}
