package io.ortex.ep.example.program;

import io.ortex.api.InvalidModelException;
import io.ortex.api.Names;
import io.ortex.api.Tensor;
import io.ortex.api.spi.SharedBlob;
import java.io.ByteArrayOutputStream;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * Writes a {@link Program} to bytes and reads it back: the example EP's EPContext payload. The format is described
 * in this package's documentation ({@code package-info}); every number is little-endian. Stateless and thread safe.
 */
public final class ProgramCodec {
    /** The first four bytes of a serialized program: {@code OXPG}. */
    public static final int MAGIC = 0x4750584F;
    /**
     * The format version this codec writes; it reads this one, format 2 (the same without op code 7, NHWC Conv) and
     * format 1 (weights always inline).
     */
    public static final int FORMAT = 3;
    /** Weight storage tag: the float32 values follow. */
    private static final int WEIGHT_INLINE = 0;
    /** Weight storage tag: a shared blob key (string) follows, the blob holding the little-endian float32 values. */
    private static final int WEIGHT_SHARED = 1;

    private static final int ATTR_NONE = 0;
    private static final int ATTR_MATMUL = 1;
    private static final int ATTR_GEMM = 2;
    private static final int ATTR_CONV = 3;

    private ProgramCodec() {
    }

    /**
     * Serializes a program.
     *
     * @param program the program
     * @return the bytes
     */
    public static byte[] write(Program program) {
        return write(program, null);
    }

    /**
     * A program serialized with its weights as shared blobs.
     *
     * @param bytes the serialized program, which names each weight's blob by key
     * @param blobs the weights' blobs, one per distinct content, in order of first use
     */
    public record Shared(byte[] bytes, List<SharedBlob> blobs) {
        /**
         * Creates the record, copying the list.
         *
         * @param bytes the bytes
         * @param blobs the blobs
         */
        public Shared {
            blobs = List.copyOf(blobs);
        }
    }

    /**
     * Serializes a program whose weights are kept apart as {@link SharedBlob}s (their little-endian float32
     * values), so that a runtime sharing EP contexts stores each distinct weight once across partitions and models.
     *
     * @param program the program
     * @return the bytes and the blobs they refer to
     */
    public static Shared writeShared(Program program) {
        Map<String, SharedBlob> blobs = new LinkedHashMap<>();
        byte[] bytes = write(program, blobs);
        return new Shared(bytes, List.copyOf(blobs.values()));
    }

    private static byte[] write(Program program, Map<String, SharedBlob> blobs) {
        Writer w = new Writer();
        w.i32(MAGIC);
        w.i32(FORMAT);
        w.strings(program.inputNames());
        w.i32(program.weights().size());
        for (PackedWeight pw : program.weights()) {
            w.string(pw.name());
            long[] shape = pw.value().shape();
            w.i32(shape.length);
            for (long d : shape) {
                w.i64(d);
            }
            float[] data = pw.value().floats();
            w.i32(data.length);
            if (blobs == null) {
                w.i8(WEIGHT_INLINE);
                w.floats(data);
            } else {
                SharedBlob blob = SharedBlob.of(floatBytes(data));
                blobs.putIfAbsent(blob.key(), blob);
                w.i8(WEIGHT_SHARED);
                w.string(blob.key());
            }
        }
        w.i32(program.instructions().size());
        for (Instruction ins : program.instructions()) {
            w.i32(ins.op().code());
            w.i8(ins.relu() ? 1 : 0);
            w.ints(ins.inputs());
            attributes(w, ins.attributes());
        }
        w.strings(program.outputNames());
        w.ints(program.outputSlots());
        return w.bytes();
    }

    private static void attributes(Writer w, OpAttributes a) {
        if (a instanceof MatMulAttributes m) {
            w.i8(ATTR_MATMUL);
            w.i8(m.bTransposed() ? 1 : 0);
        } else if (a instanceof GemmAttributes g) {
            w.i8(ATTR_GEMM);
            w.i8(g.transA() ? 1 : 0);
            w.i8(g.transB() ? 1 : 0);
            w.f32(g.alpha());
            w.f32(g.beta());
        } else if (a instanceof ConvAttributes c) {
            w.i8(ATTR_CONV);
            w.i32(c.spatialRank());
            w.i32(c.group());
            w.ints(c.kernel());
            w.ints(c.strides());
            w.ints(c.pads());
            w.ints(c.dilations());
        } else {
            w.i8(ATTR_NONE);
        }
    }

    /**
     * Reads a serialized program.
     *
     * @param bytes the bytes written by {@link #write}
     * @return the program
     * @throws InvalidModelException when the bytes are not a program of this format, are truncated, or describe an
     *     inconsistent program; the message says what is wrong
     */
    public static Program read(byte[] bytes) {
        return read(bytes, key -> {
            throw new IllegalArgumentException("weight blob " + key + " is shared, and no shared blobs were given");
        });
    }

    /**
     * Reads a serialized program whose weights may be shared blobs.
     *
     * @param bytes the bytes written by {@link #write} or {@link #writeShared}
     * @param blobs gives a shared blob's bytes by key; it throws {@link IllegalArgumentException} when it has none
     * @return the program
     * @throws InvalidModelException as {@link #read(byte[])}, and when a blob is missing or of the wrong size
     */
    public static Program read(byte[] bytes, Function<String, byte[]> blobs) {
        try {
            return decode(bytes, blobs);
        } catch (IllegalArgumentException e) {
            throw new InvalidModelException("not a compiled program this EP can read: " + e.getMessage());
        }
    }

    private static Program decode(byte[] bytes, Function<String, byte[]> blobs) {
        ByteBuffer b = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
        try {
            if (bytes.length < 8 || b.getInt() != MAGIC) {
                throw new IllegalArgumentException("not a serialized example-EP program (bad magic)");
            }
            int format = b.getInt();
            if (format < 1 || format > FORMAT) {
                throw new IllegalArgumentException("program format " + format + " cannot be read; this EP reads"
                        + " formats 1 to " + FORMAT);
            }
            List<String> inputs = strings(b);
            int weightCount = count(b, 12);
            List<PackedWeight> weights = new ArrayList<>(weightCount);
            for (int i = 0; i < weightCount; i++) {
                String name = string(b);
                int rank = count(b, 8);
                long[] shape = new long[rank];
                long size = 1;
                for (int d = 0; d < rank; d++) {
                    shape[d] = b.getLong();
                    if (shape[d] < 0) {
                        throw new IllegalArgumentException("weight " + Names.quote(name) + " has a negative dimension");
                    }
                    size *= shape[d];
                }
                int n = b.getInt();
                int storage = format == 1 ? WEIGHT_INLINE : b.get();
                if (n < 0 || storage == WEIGHT_INLINE && 4L * n > b.remaining()) {
                    throw new IllegalArgumentException("weight " + Names.quote(name) + ": count " + n
                            + " does not fit in the "
                            + b.remaining() + " bytes left");
                }
                if (n != size) {
                    throw new IllegalArgumentException("weight " + Names.quote(name) + " holds " + n
                            + " values for shape "
                            + Arrays.toString(shape));
                }
                float[] data = new float[n];
                if (storage == WEIGHT_INLINE) {
                    b.asFloatBuffer().get(data);
                    b.position(b.position() + 4 * n);
                } else if (storage == WEIGHT_SHARED) {
                    String key = string(b);
                    byte[] blob = blobs.apply(key);
                    if (blob == null || blob.length != 4L * n) {
                        throw new IllegalArgumentException("weight " + Names.quote(name) + ": shared blob " + key + " "
                                + (blob == null ? "is missing" : "holds " + blob.length + " bytes, not " + 4L * n));
                    }
                    ByteBuffer.wrap(blob).order(ByteOrder.LITTLE_ENDIAN).asFloatBuffer().get(data);
                } else {
                    throw new IllegalArgumentException("weight " + Names.quote(name) + " has unknown storage "
                            + storage);
                }
                weights.add(new PackedWeight(name, Tensor.ofFloats(data, shape)));
            }
            int insCount = count(b, 6);
            List<Instruction> instructions = new ArrayList<>(insCount);
            for (int i = 0; i < insCount; i++) {
                OpCode op = OpCode.fromCode(b.getInt());
                boolean relu = b.get() != 0;
                int[] operands = ints(b);
                instructions.add(new Instruction(op, attributes(b), operands, relu));
            }
            List<String> outputs = strings(b);
            int[] outputSlots = ints(b);
            if (b.hasRemaining()) {
                throw new IllegalArgumentException(b.remaining() + " bytes left after the program");
            }
            return new Program(inputs, weights, instructions, outputs, outputSlots);
        } catch (BufferUnderflowException | IndexOutOfBoundsException e) {
            throw new IllegalArgumentException("the serialized program is truncated");
        }
    }

    private static byte[] floatBytes(float[] v) {
        ByteBuffer buf = ByteBuffer.allocate(v.length * 4).order(ByteOrder.LITTLE_ENDIAN);
        buf.asFloatBuffer().put(v);
        return buf.array();
    }

    private static OpAttributes attributes(ByteBuffer b) {
        int kind = b.get();
        switch (kind) {
            case ATTR_NONE:
                return OpAttributes.NONE;
            case ATTR_MATMUL:
                return new MatMulAttributes(b.get() != 0);
            case ATTR_GEMM:
                return new GemmAttributes(b.get() != 0, b.get() != 0, b.getFloat(), b.getFloat());
            case ATTR_CONV:
                return new ConvAttributes(b.getInt(), b.getInt(), ints(b), ints(b), ints(b), ints(b));
            default:
                throw new IllegalArgumentException("unknown attribute kind " + kind);
        }
    }

    /** Reads a count, refusing one that cannot fit in what is left, at {@code minBytes} per element. */
    private static int count(ByteBuffer b, int minBytes) {
        int n = b.getInt();
        if (n < 0 || (long) n * minBytes > b.remaining()) {
            throw new IllegalArgumentException("count " + n + " does not fit in the " + b.remaining()
                    + " bytes left");
        }
        return n;
    }

    private static int[] ints(ByteBuffer b) {
        int[] out = new int[count(b, 4)];
        for (int i = 0; i < out.length; i++) {
            out[i] = b.getInt();
        }
        return out;
    }

    private static String string(ByteBuffer b) {
        byte[] s = new byte[count(b, 1)];
        b.get(s);
        return new String(s, StandardCharsets.UTF_8);
    }

    private static List<String> strings(ByteBuffer b) {
        int n = count(b, 4);
        List<String> out = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            out.add(string(b));
        }
        return out;
    }

    /** A little-endian writer into a growing array. */
    private static final class Writer {
        private final ByteArrayOutputStream out = new ByteArrayOutputStream();
        private final ByteBuffer scratch = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN);

        void i8(int v) {
            out.write(v);
        }

        void i32(int v) {
            scratch.clear();
            out.write(scratch.putInt(v).array(), 0, 4);
        }

        void i64(long v) {
            scratch.clear();
            out.write(scratch.putLong(v).array(), 0, 8);
        }

        void f32(float v) {
            i32(Float.floatToRawIntBits(v));
        }

        void ints(int[] v) {
            i32(v.length);
            for (int x : v) {
                i32(x);
            }
        }

        void floats(float[] v) {
            byte[] bytes = floatBytes(v);
            out.write(bytes, 0, bytes.length);
        }

        void string(String s) {
            byte[] bytes = s.getBytes(StandardCharsets.UTF_8);
            i32(bytes.length);
            out.write(bytes, 0, bytes.length);
        }

        void strings(List<String> v) {
            i32(v.size());
            v.forEach(this::string);
        }

        byte[] bytes() {
            return out.toByteArray();
        }
    }
}
