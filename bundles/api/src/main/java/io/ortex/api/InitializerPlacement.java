package io.ortex.api;

import java.nio.file.Path;
import java.util.List;
import java.util.Objects;

/**
 * Decides where the compiled model keeps each of its initializers, ONNX Runtime's
 * {@code OrtGetInitializerLocationFunc} (set with {@code SetOutputModelGetInitializerLocationFunc}). The compile API
 * calls it once for each initializer the compiled model keeps, that is those read by nodes no EP compiled (the
 * compiled nodes carry their weights in their payloads), in the order of the source's initializers, on the
 * compiling thread. An exception it throws aborts the compilation and is passed on; nothing is left behind.
 */
@FunctionalInterface
public interface InitializerPlacement {
    /**
     * Decides where one initializer goes.
     *
     * @param initializer the initializer: its name, type, shape, size and where the source has it
     * @return the decision, never {@code null}
     */
    Decision place(Initializer initializer);

    /**
     * An initializer of the compiled model, as the placement sees it.
     *
     * @param name its name
     * @param type its element type
     * @param shape its dimensions (empty for a scalar), unmodifiable
     * @param byteSize the size of its data in bytes
     * @param source where the source model keeps its data: {@code null} when embedded in the model
     */
    record Initializer(String name, ElementType type, List<Long> shape, long byteSize, ExternalLocation source) {
        /**
         * Checks and copies the fields.
         *
         * @param name its name
         * @param type its element type
         * @param shape its dimensions
         * @param byteSize the size of its data in bytes
         * @param source where the source keeps it, or {@code null}
         */
        public Initializer {
            Objects.requireNonNull(name, "name");
            Objects.requireNonNull(type, "type");
            shape = List.copyOf(shape);
        }
    }

    /**
     * Where external data lives: a file, an offset into it and a length.
     *
     * @param file the data file, absolute
     * @param offset the offset of the first byte
     * @param length the number of bytes
     */
    record ExternalLocation(Path file, long offset, long length) {
        /**
         * Checks the fields.
         *
         * @param file the data file
         * @param offset the offset
         * @param length the length
         */
        public ExternalLocation {
            Objects.requireNonNull(file, "file");
        }
    }

    /** What to do with an initializer. */
    enum Decision {
        /** Keep its data inside the compiled model ({@code raw_data}). */
        EMBED,
        /**
         * Append its data to the compiled model's external initializers file, at an offset aligned to 64 bytes.
         * The file lies in the compiled model's folder and is named by
         * {@link SessionOptions#EP_CONTEXT_MODEL_EXTERNAL_INITIALIZERS_FILE_NAME} when set, else
         * {@code <model stem>_initializers.bin}; the model references it relative to its folder.
         */
        EXTERNAL,
        /**
         * Reference the source's external data where it is: same file, offset and length, as a path relative to
         * the compiled model's folder. Only for an initializer whose {@link Initializer#source()} is not
         * {@code null}, and only when that file lies inside the compiled model's folder (else the compilation fails
         * with an {@link InvalidArgumentException} naming the initializer and file).
         */
        KEEP_SOURCE
    }
}
