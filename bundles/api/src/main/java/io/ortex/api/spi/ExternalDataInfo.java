package io.ortex.api.spi;

import java.nio.file.Path;

/**
 * Where an initializer's bytes are stored outside the model file.
 * Mirrors ONNX Runtime's {@code OrtExternalInitializerInfo} ({@code ExternalInitializerInfo_GetFilePath}, {@code
 * _GetFileOffset}, {@code _GetByteSize}).
 *
 * @param file the resolved file, inside the model's folder
 * @param offset the byte offset in the file
 * @param length the number of bytes
 */
public record ExternalDataInfo(Path file, long offset, long length) {
}
