package io.ortex.serve.internal;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import io.ortex.api.HalfFloats;
import io.ortex.api.Names;
import io.ortex.api.Tensor;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;

/**
 * Encodes the response of {@code POST /v2/models/{name}/infer}: the JSON response of the Open Inference Protocol v2
 * and, for outputs asked for in binary, the binary tensor data after it (then {@link Encoded#headerLength()} is the
 * JSON's length, for the {@code Inference-Header-Content-Length} header). Unsigned integers are written as unsigned
 * numbers, FP16 and BF16 as the floats they stand for, BYTES as strings. Thread safe and stateless.
 */
public final class InferResponseEncoder {
    private final JsonFactory json = new JsonFactory();

    /** Creates an encoder. */
    public InferResponseEncoder() {
    }

    /**
     * An encoded response.
     *
     * @param body the body
     * @param headerLength the length of the JSON part when binary data follows it, or -1 when the body is all JSON
     */
    public record Encoded(byte[] body, int headerLength) {
    }

    /**
     * One output to send.
     *
     * @param name its name
     * @param tensor its value
     * @param binary whether it goes in the binary extension
     */
    public record Output(String name, Tensor tensor, boolean binary) {
    }

    /**
     * Encodes a response.
     *
     * @param model the model's name
     * @param version the model's version
     * @param id the request's id, or null
     * @param outputs the outputs, in the order to send them
     * @return the body
     * @throws ProtocolException (500) when an output's type has no datatype in the protocol
     */
    public Encoded encode(String model, String version, String id, List<Output> outputs) {
        for (Output o : outputs) {
            if (Datatype.of(o.tensor().type()) == null) {
                throw new ProtocolException(ProtocolException.INTERNAL, "output " + Names.quote(o.name())
                        + " is of type " + o.tensor().type() + ", which the protocol has no datatype for");
            }
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        boolean anyBinary = false;
        try (JsonGenerator g = json.createGenerator(out)) {
            g.writeStartObject();
            g.writeStringField("model_name", model);
            g.writeStringField("model_version", version);
            if (id != null) {
                g.writeStringField("id", id);
            }
            g.writeArrayFieldStart("outputs");
            for (Output o : outputs) {
                Tensor t = o.tensor();
                g.writeStartObject();
                g.writeStringField("name", o.name());
                g.writeStringField("datatype", Datatype.of(t.type()).name());
                g.writeArrayFieldStart("shape");
                for (long d : t.shape()) {
                    g.writeNumber(d);
                }
                g.writeEndArray();
                if (o.binary()) {
                    anyBinary = true;
                    g.writeObjectFieldStart("parameters");
                    g.writeNumberField("binary_data_size", binarySize(t));
                    g.writeEndObject();
                } else {
                    g.writeArrayFieldStart("data");
                    writeData(g, t);
                    g.writeEndArray();
                }
                g.writeEndObject();
            }
            g.writeEndArray();
            g.writeEndObject();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        if (!anyBinary) {
            return new Encoded(out.toByteArray(), -1);
        }
        int headerLength = out.size();
        for (Output o : outputs) {
            if (o.binary()) {
                BinaryTensors.encode(o.tensor(), out);
            }
        }
        return new Encoded(out.toByteArray(), headerLength);
    }

    private static long binarySize(Tensor t) {
        if (t.data() instanceof String[] strings) {
            long n = 0;
            for (String s : strings) {
                n += 4 + s.getBytes(java.nio.charset.StandardCharsets.UTF_8).length;
            }
            return n;
        }
        return (long) t.size() * t.type().byteSize();
    }

    private static void writeData(JsonGenerator g, Tensor t) throws IOException {
        int n = t.size();
        switch (t.type()) {
            case FLOAT -> {
                float[] a = t.floats();
                for (int i = 0; i < n; i++) {
                    g.writeNumber(a[i]);
                }
            }
            case DOUBLE -> {
                double[] a = t.doubles();
                for (int i = 0; i < n; i++) {
                    g.writeNumber(a[i]);
                }
            }
            case FLOAT16, BFLOAT16 -> {
                short[] a = t.shorts();
                boolean half = t.type() == io.ortex.api.ElementType.FLOAT16;
                for (int i = 0; i < n; i++) {
                    g.writeNumber(half ? HalfFloats.float16ToFloat(a[i]) : HalfFloats.bfloat16ToFloat(a[i]));
                }
            }
            case INT64 -> {
                for (long v : t.longs()) {
                    g.writeNumber(v);
                }
            }
            case UINT64 -> {
                for (long v : t.longs()) {
                    if (v >= 0) {
                        g.writeNumber(v);
                    } else {
                        g.writeNumber(new java.math.BigInteger(Long.toUnsignedString(v)));
                    }
                }
            }
            case INT32 -> {
                for (int v : t.ints()) {
                    g.writeNumber(v);
                }
            }
            case UINT32 -> {
                for (int v : t.ints()) {
                    g.writeNumber(Integer.toUnsignedLong(v));
                }
            }
            case INT16 -> {
                for (short v : t.shorts()) {
                    g.writeNumber(v);
                }
            }
            case UINT16 -> {
                for (short v : t.shorts()) {
                    g.writeNumber(Short.toUnsignedInt(v));
                }
            }
            case INT8 -> {
                for (byte v : t.bytes()) {
                    g.writeNumber(v);
                }
            }
            case UINT8 -> {
                for (byte v : t.bytes()) {
                    g.writeNumber(Byte.toUnsignedInt(v));
                }
            }
            case BOOL -> {
                for (boolean v : t.booleans()) {
                    g.writeBoolean(v);
                }
            }
            case STRING -> {
                for (String v : t.strings()) {
                    g.writeString(v);
                }
            }
            default -> throw new IllegalStateException("no JSON form for " + t.type());
        }
    }
}
