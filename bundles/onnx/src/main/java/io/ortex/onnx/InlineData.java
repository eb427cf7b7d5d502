package io.ortex.onnx;

import com.google.protobuf.ByteString;
import com.google.protobuf.CodedInputStream;
import com.google.protobuf.CodedOutputStream;
import com.google.protobuf.WireFormat;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

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
    /** The tensor fields that hold or place data besides {@code raw_data}: typed data, external data, location. */
    private static final Set<Integer> OTHER_DATA_FIELDS = Set.of(4, 5, 6, 7, 10, 11, 13, 14);

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

    /**
     * The model file without the {@code raw_data} of the main graph's larger initializers: what protobuf parses
     * when those weights are to stay in the file. Each cut initializer keeps every other field, and the lengths of
     * the messages around it are rewritten to match.
     *
     * @param parts the pieces of the file and the rewritten lengths, in order
     * @param cut the file range of each cut initializer's data, by the initializer's index in the graph
     */
    record Elision(List<Part> parts, Map<Integer, Range> cut) {
        /**
         * Streams the model without the cut data, reading the file's pieces through the channel.
         *
         * @param ch the open model file
         * @return the stream; closing it leaves the channel open
         */
        InputStream open(FileChannel ch) {
            return new ElidedStream(ch, parts);
        }
    }

    /**
     * A piece of the elided model: a range of the file, or bytes written in place of some.
     *
     * @param offset where the range starts
     * @param length its length
     * @param bytes the bytes to write instead of a range, or {@code null}
     */
    record Part(long offset, long length, byte[] bytes) {
        static Part of(long from, long to) {
            return new Part(from, to - from, null);
        }

        static Part varint(int value) {
            byte[] b = new byte[CodedOutputStream.computeUInt32SizeNoTag(value)];
            try {
                CodedOutputStream out = CodedOutputStream.newInstance(b);
                out.writeUInt32NoTag(value);
                out.flush();
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
            return new Part(0, b.length, b);
        }
    }

    /** Where a cut initializer's length and data field lie in the file. */
    private record Cut(int index, long lengthAt, long lengthEnd, int length, long fieldStart, long fieldEnd,
                       Range data) {
        int newLength() {
            return length - (int) (fieldEnd - fieldStart);
        }

        long shrinks() {
            return fieldEnd - fieldStart + lengthEnd - lengthAt - CodedOutputStream.computeUInt32SizeNoTag(newLength());
        }
    }

    /**
     * Plans the elision of the main graph's initializers whose {@code raw_data} has at least {@code threshold} bytes.
     * Only a plain layout is cut: one {@code graph} field, and in each cut initializer one {@code raw_data} field and
     * no other data field; anything else is left to protobuf whole.
     *
     * @param ch the open model file; its position is moved
     * @param threshold the smallest data cut
     * @return the plan, or {@code null} when nothing is cut
     * @throws IOException when the file cannot be read or is not a protobuf
     */
    static Elision plan(FileChannel ch, int threshold) throws IOException {
        ch.position(0);
        CodedInputStream wire = CodedInputStream.newInstance(Channels.newInputStream(ch), COMPARE_CHUNK);
        wire.setSizeLimit(Integer.MAX_VALUE);
        int graphs = 0;
        long graphLengthAt = 0;
        long graphLengthEnd = 0;
        int graphLength = 0;
        List<Cut> cuts = new ArrayList<>();
        for (int tag = wire.readTag(); tag != 0; tag = wire.readTag()) {
            if (tag == lengthDelimited(MODEL_GRAPH)) {
                graphs++;
                graphLengthAt = wire.getTotalBytesRead();
                graphLength = wire.readRawVarint32();
                graphLengthEnd = wire.getTotalBytesRead();
                int limit = wire.pushLimit(graphLength);
                cuts(wire, threshold, cuts);
                wire.popLimit(limit);
            } else {
                wire.skipField(tag);
            }
        }
        if (graphs != 1 || cuts.isEmpty()) {
            return null;
        }
        long shrinks = 0;
        for (Cut c : cuts) {
            shrinks += c.shrinks();
        }
        List<Part> parts = new ArrayList<>();
        parts.add(Part.of(0, graphLengthAt));
        parts.add(Part.varint((int) (graphLength - shrinks)));
        long next = graphLengthEnd;
        Map<Integer, Range> cut = new HashMap<>();
        for (Cut c : cuts) {
            parts.add(Part.of(next, c.lengthAt()));
            parts.add(Part.varint(c.newLength()));
            parts.add(Part.of(c.lengthEnd(), c.fieldStart()));
            next = c.fieldEnd();
            cut.put(c.index(), c.data());
        }
        parts.add(Part.of(next, wire.getTotalBytesRead()));
        return new Elision(List.copyOf(parts), Map.copyOf(cut));
    }

    /** Finds the initializers of a graph message to cut. */
    private static void cuts(CodedInputStream wire, int threshold, List<Cut> cuts) throws IOException {
        int index = 0;
        while (!wire.isAtEnd()) {
            int tag = wire.readTag();
            if (tag != lengthDelimited(GRAPH_INITIALIZER)) {
                wire.skipField(tag);
                continue;
            }
            long lengthAt = wire.getTotalBytesRead();
            int length = wire.readRawVarint32();
            long lengthEnd = wire.getTotalBytesRead();
            int limit = wire.pushLimit(length);
            int rawFields = 0;
            boolean otherData = false;
            long fieldStart = 0;
            Range data = null;
            while (!wire.isAtEnd()) {
                long start = wire.getTotalBytesRead();
                int field = wire.readTag();
                if (field == lengthDelimited(TENSOR_RAW_DATA)) {
                    rawFields++;
                    fieldStart = start;
                    int size = wire.readRawVarint32();
                    data = new Range(wire.getTotalBytesRead(), size);
                    wire.skipRawBytes(size);
                } else {
                    otherData |= OTHER_DATA_FIELDS.contains(WireFormat.getTagFieldNumber(field));
                    wire.skipField(field);
                }
            }
            wire.popLimit(limit);
            if (rawFields == 1 && !otherData && data.length() >= threshold) {
                cuts.add(new Cut(index, lengthAt, lengthEnd, length, fieldStart,
                        data.offset() + data.length(), data));
            }
            index++;
        }
    }

    /** Streams the parts of an elision, reading the file's ranges at most 1 MiB per read. */
    private static final class ElidedStream extends InputStream {
        private static final int MAX_READ = 1 << 20;
        private final FileChannel ch;
        private final List<Part> parts;
        private int part;
        private long done;

        ElidedStream(FileChannel ch, List<Part> parts) {
            this.ch = ch;
            this.parts = parts;
        }

        @Override
        public int read() throws IOException {
            byte[] one = new byte[1];
            return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            while (part < parts.size() && done == parts.get(part).length()) {
                part++;
                done = 0;
            }
            if (part == parts.size()) {
                return -1;
            }
            Part p = parts.get(part);
            int n = (int) Math.min(Math.min(len, MAX_READ), p.length() - done);
            if (p.bytes() != null) {
                System.arraycopy(p.bytes(), (int) done, b, off, n);
            } else if (!ExternalData.readFully(ch, ByteBuffer.wrap(b, off, n), p.offset() + done)) {
                throw new IOException("the model file ended early: it changed while it was read");
            }
            done += n;
            return n;
        }
    }

    private static int lengthDelimited(int field) {
        return field << 3 | WireFormat.WIRETYPE_LENGTH_DELIMITED;
    }
}
