package io.ortex.onnx;

import io.ortex.api.ElementType;
import io.ortex.api.InvalidModelException;
import io.ortex.api.Tensor;
import io.ortex.api.spi.ExternalDataInfo;
import io.ortex.onnx.proto.Onnx.StringStringEntryProto;
import io.ortex.onnx.proto.Onnx.TensorProto;
import java.io.IOException;
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
 * of the folder, or leads out of it through a symbolic link is refused. Files are memory-mapped, so large weights
 * are not copied onto the heap until a tensor is decoded.
 */
public final class ExternalData {
    /** Files smaller than this are read rather than mapped. */
    static final long MAP_THRESHOLD = 1 << 16;

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
        for (StringStringEntryProto e : proto.getExternalDataList()) {
            switch (e.getKey()) {
                case "location": location = e.getValue(); break;
                case "offset": offset = parseLong(proto, model, "offset", e.getValue()); break;
                case "length": length = parseLong(proto, model, "length", e.getValue()); break;
                default: break;
            }
        }
        String tensor = "initializer '" + proto.getName() + "'";
        if (location == null || location.isEmpty()) {
            throw new InvalidModelException(model + ": " + tensor + " has external data without a location");
        }
        if (folder == null) {
            throw new InvalidModelException(model + ": " + tensor + " has external data in '" + location
                    + "' but the model was loaded from bytes; set session."
                    + "model_external_initializers_file_folder_path");
        }
        Path file = resolveInside(folder, location, model + ": " + tensor);
        long size;
        try {
            size = Files.size(file);
        } catch (NoSuchFileException e) {
            throw new InvalidModelException(model + ": " + tensor + " external data file '" + location
                    + "' does not exist in " + folder);
        } catch (IOException e) {
            throw new InvalidModelException(model + ": " + tensor + " external data file '" + location
                    + "' cannot be read: " + e.getMessage());
        }
        if (length < 0) {
            length = size - offset;
        }
        if (offset < 0 || offset > size || length > size - offset) {
            throw new InvalidModelException(model + ": " + tensor + " external data (offset " + offset
                    + ", length " + length + ") lies outside '" + location + "' (" + size + " bytes)");
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
            throw new InvalidModelException(what + ": location '" + location + "' is not a valid path");
        }
        if (rel.isAbsolute() || location.startsWith("/") || location.startsWith("\\")) {
            throw new InvalidModelException(what + ": location '" + location
                    + "' is absolute; it must be relative to the model's folder");
        }
        Path base = folder.toAbsolutePath().normalize();
        Path resolved = base.resolve(rel).normalize();
        if (!resolved.startsWith(base)) {
            throw new InvalidModelException(what + ": location '" + location + "' escapes the model's folder");
        }
        if (Files.exists(resolved, LinkOption.NOFOLLOW_LINKS)) {
            try {
                Path real = resolved.toRealPath();
                if (!real.startsWith(base.toRealPath())) {
                    throw new InvalidModelException(what + ": location '" + location
                            + "' leads out of the model's folder through a symbolic link");
                }
            } catch (IOException e) {
                throw new InvalidModelException(what + ": location '" + location + "' cannot be resolved: "
                        + e.getMessage());
            }
        }
        return resolved;
    }

    /**
     * Reads a tensor from its external file.
     *
     * @param proto the tensor message
     * @param info where its data lives, from {@link #locate}
     * @return the tensor
     */
    public static Tensor read(TensorProto proto, ExternalDataInfo info) {
        ElementType type = TensorCodec.elementType(proto);
        long[] shape = TensorCodec.shape(proto);
        int count = TensorCodec.elementCount(proto, shape);
        try (FileChannel ch = FileChannel.open(info.file(), StandardOpenOption.READ)) {
            ByteBuffer bytes;
            if (info.length() >= MAP_THRESHOLD) {
                bytes = ch.map(FileChannel.MapMode.READ_ONLY, info.offset(), info.length());
            } else {
                bytes = ByteBuffer.allocate((int) info.length());
                long pos = info.offset();
                while (bytes.hasRemaining()) {
                    int n = ch.read(bytes, pos);
                    if (n < 0) {
                        throw new InvalidModelException("initializer '" + proto.getName() + "': external file "
                                + info.file() + " ended early");
                    }
                    pos += n;
                }
                bytes.flip();
            }
            return TensorCodec.fromBytes(proto.getName(), type, shape, count, bytes);
        } catch (IOException e) {
            throw new InvalidModelException("initializer '" + proto.getName() + "': cannot read external file "
                    + info.file() + ": " + e.getMessage());
        }
    }

    private static long parseLong(TensorProto proto, String model, String key, String text) {
        try {
            return Long.parseLong(text.trim());
        } catch (NumberFormatException e) {
            throw new InvalidModelException(model + ": initializer '" + proto.getName() + "' has external data "
                    + key + " '" + text + "', not a number");
        }
    }
}
