package io.ortex.onnx;

import io.ortex.api.ElementType;
import io.ortex.api.InvalidModelException;
import io.ortex.api.Names;
import io.ortex.api.Tensor;
import io.ortex.api.spi.ExternalDataInfo;
import io.ortex.onnx.proto.Onnx.StringStringEntryProto;
import io.ortex.onnx.proto.Onnx.TensorProto;
import java.io.IOException;
import java.lang.reflect.Array;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * Initializer data stored outside the model file ({@code data_location = EXTERNAL}): the {@code location},
 * {@code offset} and {@code length} entries, resolved against one folder. A location that is absolute, climbs out
 * of the folder, or leads out of it through a symbolic link is refused. Tensors are decoded from the file through a
 * small buffer; {@link #bytes} maps large ranges for EPs that copy raw weights to memory of their own.
 */
public final class ExternalData {
    /** Ranges shorter than this are read onto the heap rather than mapped. */
    public static final long MAP_THRESHOLD = 1 << 16;
    /** The longest range mapped or read as one buffer; longer tensors are decoded in pieces of this size. */
    public static final long MAX_MAPPING = 1L << 30;
    /** How much of an external file {@link #read(TensorProto, ExternalDataInfo)} reads at a time. */
    public static final int READ_CHUNK = 1 << 20;

    private ExternalData() {
    }

    /**
     * Tells whether a tensor keeps its data in an external file.
     *
     * @param proto the tensor message
     * @return true for external data
     */
    public static boolean isExternal(TensorProto proto) {
        return proto.getDataLocation() == TensorProto.DataLocation.EXTERNAL;
    }

    /**
     * Resolves and checks where a tensor's external data lives.
     *
     * @param proto the tensor message
     * @param folder the folder locations are relative to, or {@code null} when the model has none
     * @param model a description of the model, for messages
     * @return the file, offset and length, checked against the file's size
     */
    public static ExternalDataInfo locate(TensorProto proto, Path folder, String model) {
        String location = null;
        long offset = 0;
        long length = -1;
        boolean lengthGiven = false;
        for (StringStringEntryProto e : proto.getExternalDataList()) {
            switch (e.getKey()) {
                case "location": location = e.getValue(); break;
                case "offset": offset = parseLong(proto, model, "offset", e.getValue()); break;
                case "length":
                    length = parseLong(proto, model, "length", e.getValue());
                    lengthGiven = true;
                    break;
                default: break;
            }
        }
        String tensor = "initializer " + Names.quote(proto.getName());
        if (location == null || location.isEmpty()) {
            throw new InvalidModelException(model + ": " + tensor + " has external data without a location");
        }
        if (folder == null) {
            throw new InvalidModelException(model + ": " + tensor + " has external data in " + Names.quote(location)
                    + " but the model was loaded from bytes; set session."
                    + "model_external_initializers_file_folder_path");
        }
        Path file = resolveInside(folder, location, model + ": " + tensor);
        if (Files.exists(file) && !Files.isRegularFile(file)) {
            throw new InvalidModelException(model + ": " + tensor + " external data location " + Names.quote(location)
                    + " is not a regular file");
        }
        long size;
        try {
            size = Files.size(file);
        } catch (NoSuchFileException e) {
            throw new InvalidModelException(model + ": " + tensor + " external data file " + Names.quote(location)
                    + " does not exist in " + folder);
        } catch (IOException e) {
            throw new InvalidModelException(model + ": " + tensor + " external data file " + Names.quote(location)
                    + " cannot be read: " + e.getMessage());
        }
        if (!lengthGiven) {
            length = size - offset;
        }
        if (offset < 0 || length < 0 || offset > size || length > size - offset) {
            throw new InvalidModelException(model + ": " + tensor + " external data (offset " + offset
                    + ", length " + length + ") lies outside " + Names.quote(location) + " (" + size + " bytes)");
        }
        return new ExternalDataInfo(file, offset, length);
    }

    /**
     * Resolves a relative location inside a folder, refusing any that escapes it.
     *
     * @param folder the folder
     * @param location the relative location from the model
     * @param what what is being resolved, for messages
     * @return the resolved path
     * @throws InvalidModelException when the location escapes the folder
     */
    public static Path resolveInside(Path folder, String location, String what) {
        Path rel;
        try {
            rel = Path.of(location);
        } catch (RuntimeException e) {
            throw new InvalidModelException(what + ": location " + Names.quote(location) + " is not a valid path");
        }
        if (rel.isAbsolute() || location.startsWith("/") || location.startsWith("\\")) {
            throw new InvalidModelException(what + ": location " + Names.quote(location)
                    + " is absolute; it must be relative to the model's folder");
        }
        Path base = folder.toAbsolutePath().normalize();
        Path resolved = base.resolve(rel).normalize();
        if (!resolved.startsWith(base)) {
            throw new InvalidModelException(what + ": location " + Names.quote(location)
                    + " escapes the model's folder");
        }
        if (Files.exists(resolved, LinkOption.NOFOLLOW_LINKS)) {
            try {
                Path real = resolved.toRealPath();
                if (!real.startsWith(base.toRealPath())) {
                    throw new InvalidModelException(what + ": location " + Names.quote(location)
                            + " leads out of the model's folder through a symbolic link");
                }
            } catch (IOException e) {
                throw new InvalidModelException(what + ": location " + Names.quote(location) + " cannot be resolved: "
                        + e.getMessage());
            }
        }
        return resolved;
    }

    /**
     * Reads a tensor from its external file, through a heap buffer of at most {@link #READ_CHUNK} bytes: the file is
     * not mapped, so its pages do not stay in the process's resident memory after the tensor is decoded.
     *
     * @param proto the tensor message
     * @param info where its data lives, from {@link #locate}
     * @return the tensor
     */
    public static Tensor read(TensorProto proto, ExternalDataInfo info) {
        return read(proto, info, READ_CHUNK);
    }

    /** Reads a tensor, {@code chunkBytes} (a multiple of 8) at a time. */
    static Tensor read(TensorProto proto, ExternalDataInfo info, int chunkBytes) {
        try (FileChannel ch = FileChannel.open(info.file(), StandardOpenOption.READ)) {
            return read(proto, info, ch, chunkBytes);
        } catch (IOException e) {
            throw new InvalidModelException("initializer " + Names.quote(proto.getName())
                    + ": cannot read external file " + info.file() + ": " + e.getMessage());
        }
    }

    /**
     * Reads a tensor through a file already open, which {@code info} names for messages.
     *
     * @param proto the tensor message
     * @param info where its data lives
     * @param ch the open file
     * @return the tensor
     */
    static Tensor read(TensorProto proto, ExternalDataInfo info, FileChannel ch) {
        return read(proto, info, ch, READ_CHUNK);
    }

    private static Tensor read(TensorProto proto, ExternalDataInfo info, FileChannel ch, int chunkBytes) {
        String name = proto.getName();
        String what = "initializer " + Names.quote(name);
        ElementType type = TensorCodec.elementType(proto);
        TensorCodec.requireNumeric(name, type, "an external file");
        long[] shape = TensorCodec.shape(proto);
        int count = TensorCodec.elementCount(proto, shape);
        long expected = TensorCodec.byteCount(type, count);
        if (info.length() != expected) {
            throw new InvalidModelException(what + " of type " + type + " and shape "
                    + Tensor.shapeString(shape) + " needs " + expected + " bytes, its external data has "
                    + info.length());
        }
        try {
            if (info.offset() + expected > ch.size()) {
                throw new InvalidModelException(what + ": external file " + info.file() + " has " + ch.size()
                        + " bytes, fewer than offset " + info.offset() + " + length " + expected);
            }
            if (type.bitWidth() < 8) {
                // packed elements: small enough to read whole, and decoded in one piece
                ByteBuffer all = ByteBuffer.allocate((int) expected);
                if (!readFully(ch, all, info.offset())) {
                    throw new InvalidModelException(what + ": external file " + info.file() + " ended early");
                }
                return TensorCodec.fromBytes(name, type, shape, count, all.flip());
            }
            Object data = Array.newInstance(type.storage().getComponentType(), count);
            ByteBuffer chunk = ByteBuffer.allocate((int) Math.min(chunkBytes, Math.max(expected, 1)));
            for (long done = 0; done < expected; done += chunk.limit()) {
                chunk.clear().limit((int) Math.min(chunk.capacity(), expected - done));
                if (!readFully(ch, chunk, info.offset() + done)) {
                    throw new InvalidModelException(what + ": external file " + info.file() + " ended early");
                }
                TensorCodec.decodeInto(type, chunk.flip(), data, (int) (done / type.byteSize()));
            }
            return Tensor.of(type, shape, data);
        } catch (IOException e) {
            throw new InvalidModelException(what + ": cannot read external file " + info.file() + ": "
                    + e.getMessage());
        }
    }

    /**
     * Fills a buffer's remaining space from a file.
     *
     * @param ch the file
     * @param into the buffer
     * @param position where in the file the buffer's position lies
     * @return false when the file ended first
     * @throws IOException when the file cannot be read
     */
    static boolean readFully(FileChannel ch, ByteBuffer into, long position) throws IOException {
        long start = position - into.position();
        while (into.hasRemaining()) {
            if (ch.read(into, start + into.position()) < 0) {
                return false;
            }
        }
        return true;
    }

    /**
     * Gives read-only access to external bytes without decoding them. Ranges of at least
     * {@link #MAP_THRESHOLD} bytes are memory-mapped (a {@link java.nio.MappedByteBuffer}; nothing is copied onto the
     * heap, and the mapping stays valid after the call); smaller ones are read into a heap buffer. EPs that upload
     * weights to their own memory can use this instead of decoding a {@link Tensor}.
     *
     * @param info the range, from {@link #locate}; at most {@link #MAX_MAPPING} bytes
     * @param what what the bytes are, for messages, such as {@code initializer 'w'}
     * @return a read-only buffer positioned at the first byte, its remaining count {@code info.length()}
     * @throws InvalidModelException when the file cannot be read or ends early
     * @throws io.ortex.api.InvalidArgumentException when the range is longer than {@link #MAX_MAPPING}
     */
    public static ByteBuffer bytes(ExternalDataInfo info, String what) {
        if (info.length() > MAX_MAPPING || info.length() < 0 || info.offset() < 0) {
            throw new io.ortex.api.InvalidArgumentException(what + ": external range of " + info.length()
                    + " bytes at offset " + info.offset() + " cannot be viewed as one buffer (at most "
                    + MAX_MAPPING + " bytes)");
        }
        try (FileChannel ch = FileChannel.open(info.file(), StandardOpenOption.READ)) {
            if (info.offset() + info.length() > ch.size()) {
                throw new InvalidModelException(what + ": external file " + info.file() + " has " + ch.size()
                        + " bytes, fewer than offset " + info.offset() + " + length " + info.length());
            }
            if (info.length() >= MAP_THRESHOLD) {
                return ch.map(FileChannel.MapMode.READ_ONLY, info.offset(), info.length());
            }
            ByteBuffer bytes = ByteBuffer.allocate((int) info.length());
            long pos = info.offset();
            while (bytes.hasRemaining()) {
                int n = ch.read(bytes, pos);
                if (n < 0) {
                    throw new InvalidModelException(what + ": external file " + info.file() + " ended early");
                }
                pos += n;
            }
            return bytes.flip().asReadOnlyBuffer();
        } catch (IOException e) {
            throw new InvalidModelException(what + ": cannot read external file " + info.file() + ": "
                    + e.getMessage());
        }
    }

    private static long parseLong(TensorProto proto, String model, String key, String text) {
        try {
            return Long.parseLong(text.trim());
        } catch (NumberFormatException e) {
            throw new InvalidModelException(model + ": initializer " + Names.quote(proto.getName())
                    + " has external data "
                    + key + " " + Names.quote(text) + ", not a number");
        }
    }
}
