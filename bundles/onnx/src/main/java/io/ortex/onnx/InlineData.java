package io.ortex.onnx;

import com.google.protobuf.ByteString;
import com.google.protobuf.CodedInputStream;
import com.google.protobuf.WireFormat;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.util.HashMap;
import java.util.Map;

/**
 * Where the main graph's initializers keep their {@code raw_data} inside a model file. Protobuf parsing does not say
 * where a field's bytes lay, so this walks the file's wire format once: {@code ModelProto.graph} (field 7), its
 * {@code initializer}s (field 5), and in each the {@code name} (field 8) and {@code raw_data} (field 9), skipping
 * everything else without reading it.
 */
final class InlineData {
    private static final int MODEL_GRAPH = 7;
    private static final int GRAPH_INITIALIZER = 5;
    private static final int TENSOR_NAME = 8;
    private static final int TENSOR_RAW_DATA = 9;
    private static final int COMPARE_CHUNK = 1 << 16;

    /**
     * A byte range of the file.
     *
     * @param offset the first byte
     * @param length the number of bytes
     */
    record Range(long offset, int length) {
    }

    private InlineData() {
    }

    /**
     * Finds the {@code raw_data} ranges of the main graph's initializers.
     *
     * @param ch the open model file; its position is moved
     * @return the range of each initializer's data, by name; the first one where a name repeats
     * @throws IOException when the file cannot be read or is not the protobuf it was
     */
    static Map<String, Range> locate(FileChannel ch) throws IOException {
        Map<String, Range> found = new HashMap<>();
        ch.position(0);
        // not closed: closing the stream would close the channel
        InputStream in = Channels.newInputStream(ch);
        CodedInputStream wire = CodedInputStream.newInstance(in, COMPARE_CHUNK);
        wire.setSizeLimit(Integer.MAX_VALUE);
        for (int tag = wire.readTag(); tag != 0; tag = wire.readTag()) {
            if (tag == lengthDelimited(MODEL_GRAPH)) {
                int limit = wire.pushLimit(wire.readRawVarint32());
                graph(wire, found);
                wire.popLimit(limit);
            } else {
                wire.skipField(tag);
            }
        }
        return found;
    }

    private static void graph(CodedInputStream wire, Map<String, Range> found) throws IOException {
        while (!wire.isAtEnd()) {
            int tag = wire.readTag();
            if (tag != lengthDelimited(GRAPH_INITIALIZER)) {
                wire.skipField(tag);
                continue;
            }
            int limit = wire.pushLimit(wire.readRawVarint32());
            String name = null;
            Range data = null;
            while (!wire.isAtEnd()) {
                int field = wire.readTag();
                if (field == lengthDelimited(TENSOR_NAME)) {
                    name = wire.readString();
                } else if (field == lengthDelimited(TENSOR_RAW_DATA)) {
                    int length = wire.readRawVarint32();
                    data = new Range(wire.getTotalBytesRead(), length);
                    wire.skipRawBytes(length);
                } else {
                    wire.skipField(field);
                }
            }
            wire.popLimit(limit);
            if (name != null && data != null) {
                found.putIfAbsent(name, data);
            }
        }
    }

    /**
     * Tells whether a range of the file holds exactly the given bytes; read in small pieces, so the file is not
     * mapped and its pages do not join the process's resident memory.
     *
     * @param ch the open file
     * @param range the range
     * @param bytes the expected bytes
     * @return true when they are equal
     * @throws IOException when the file cannot be read
     */
    static boolean holds(FileChannel ch, Range range, ByteString bytes) throws IOException {
        if (bytes.size() != range.length() || range.offset() + range.length() > ch.size()) {
            return false;
        }
        ByteBuffer chunk = ByteBuffer.allocate(Math.min(COMPARE_CHUNK, Math.max(1, range.length())));
        for (int done = 0; done < range.length(); ) {
            chunk.clear().limit(Math.min(chunk.capacity(), range.length() - done));
            if (!ExternalData.readFully(ch, chunk, range.offset() + done)) {
                return false;
            }
            chunk.flip();
            ByteBuffer expected = bytes.substring(done, done + chunk.limit()).asReadOnlyByteBuffer();
            if (!expected.equals(chunk)) {
                return false;
            }
            done += chunk.limit();
        }
        return true;
    }

    private static int lengthDelimited(int field) {
        return field << 3 | WireFormat.WIRETYPE_LENGTH_DELIMITED;
    }
}
