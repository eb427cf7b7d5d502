package io.ortex.shell.internal;

import io.ortex.api.ErrorCode;
import io.ortex.api.InvalidArgumentException;
import io.ortex.api.OrtexException;
import io.ortex.api.Tensor;
import io.ortex.onnx.ModelWriter;
import io.ortex.onnx.TensorCodec;
import io.ortex.onnx.proto.Onnx.TensorProto;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;

/** Reads and writes tensors as serialized {@code TensorProto} files ({@code .pb}), as ONNX's test data does. */
public final class TensorFiles {
    private TensorFiles() {
    }

    /**
     * Reads a tensor file.
     *
     * @param file the {@code .pb} file
     * @return the tensor
     * @throws InvalidArgumentException when the file is missing or not a TensorProto, naming the file
     */
    public static Tensor read(Path file) {
        byte[] bytes;
        try {
            bytes = Files.readAllBytes(file);
        } catch (NoSuchFileException e) {
            throw new InvalidArgumentException(ErrorCode.NO_SUCH_FILE, "tensor file " + file + " does not exist", e);
        } catch (IOException e) {
            throw new InvalidArgumentException(ErrorCode.NO_SUCH_FILE, "tensor file " + file + " cannot be read: "
                    + e.getMessage(), e);
        }
        try {
            return TensorCodec.parse(bytes, "tensor file " + file);
        } catch (OrtexException e) {
            if (e.getMessage().startsWith("tensor file ")) {
                throw new InvalidArgumentException(ErrorCode.INVALID_ARGUMENT, e.getMessage(), e);
            }
            throw new InvalidArgumentException(ErrorCode.INVALID_ARGUMENT, "tensor file " + file + ": "
                    + e.getMessage(), e);
        }
    }

    /**
     * Writes a tensor file through a temporary file and an atomic move.
     *
     * @param tensor the tensor
     * @param name the name stored in the message
     * @param file the target file
     */
    public static void write(Tensor tensor, String name, Path file) {
        TensorProto proto = TensorCodec.toProto(tensor, name);
        ModelWriter.writeAtomically(file, proto::writeTo);
    }
}
