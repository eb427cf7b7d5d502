package io.ortex.onnx;

import io.ortex.onnx.proto.Onnx.TensorProto;
import java.io.IOException;
import java.lang.ref.Cleaner;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.IdentityHashMap;
import java.util.Map;

/**
 * The initializer data of a model file that is read from the file when it is needed instead of being kept in
 * memory: each such tensor message with its range of the file, and the file, kept open so that the data can still be
 * read after the path is deleted or replaced. A model and the models rewritten from it (an optimized graph, say)
 * share one. Thread safe.
 */
final class DataLeftInFile {
    /** Closes the files once nothing can read them any more. */
    private static final Cleaner FILES = Cleaner.create();

    private final Path path;
    private final Map<TensorProto, InlineData.Range> ranges = new IdentityHashMap<>();
    private FileChannel channel;
    private long size;

    /**
     * Creates an empty set for a model file.
     *
     * @param path the model file, or {@code null} for a model read from bytes
     */
    DataLeftInFile(Path path) {
        this.path = path;
    }

    /**
     * Adopts the open model file, unless one is adopted already; it is closed once this becomes unreachable.
     *
     * @param ch the open file
     * @return true when {@code ch} was adopted; false when the caller keeps it
     * @throws IOException when its size cannot be read
     */
    synchronized boolean adopt(FileChannel ch) throws IOException {
        if (channel != null) {
            return false;
        }
        channel = ch;
        size = ch.size();
        FILES.register(this, new Closer(ch));
        return true;
    }

    /**
     * Opens the model file for a look at its current bytes: the adopted file when there is one and it has not
     * changed size, else a new one the caller adopts or closes.
     *
     * @return the file, or {@code null} when the adopted file changed size
     * @throws IOException when the file cannot be opened
     */
    synchronized FileChannel openForRelease() throws IOException {
        if (channel == null) {
            return FileChannel.open(path, StandardOpenOption.READ);
        }
        return channel.size() == size ? channel : null;
    }

    /** Tells whether {@code ch} is the adopted file. */
    synchronized boolean isAdopted(FileChannel ch) {
        return ch == channel;
    }

    /**
     * Records that a tensor message's data is a range of the adopted file.
     *
     * @param t the message, with external data pointing into the file
     * @param range its range
     */
    synchronized void add(TensorProto t, InlineData.Range range) {
        ranges.put(t, range);
    }

    /**
     * Gets the range of a message's data.
     *
     * @param t the message
     * @return the range, or {@code null} when its data is not left in the file
     */
    synchronized InlineData.Range range(TensorProto t) {
        return ranges.get(t);
    }

    /** Gets the model file. */
    Path path() {
        return path;
    }

    /** Gets the adopted file. */
    synchronized FileChannel channel() {
        return channel;
    }

    /** Gets the adopted file's size when it was adopted. */
    synchronized long size() {
        return size;
    }

    /** Closes a model file; holds no reference to what it belongs to, so that can become unreachable. */
    record Closer(FileChannel channel) implements Runnable {
        @Override
        public void run() {
            close(channel);
        }

        static void close(FileChannel channel) {
            try {
                channel.close();
            } catch (IOException e) {
                // nothing was written: nothing is lost
            }
        }
    }
}
