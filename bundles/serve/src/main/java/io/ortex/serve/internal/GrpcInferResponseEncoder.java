package io.ortex.serve.internal;

import com.google.protobuf.ByteString;
import com.google.protobuf.UnsafeByteOperations;
import inference.GrpcPredictV2.InferTensorContents;
import inference.GrpcPredictV2.ModelInferResponse;
import inference.GrpcPredictV2.ModelInferResponse.InferOutputTensor;
import io.ortex.api.ElementType;
import io.ortex.api.Names;
import io.ortex.api.Tensor;
import java.io.ByteArrayOutputStream;
import java.util.Map;

/**
 * Encodes an inference's outputs as a gRPC {@code ModelInferResponse}. Outputs go in {@code raw_output_contents} (the
 * binary extension's layout, {@link BinaryTensors}) when the request sent its inputs raw or when an output is FP16 or
 * BF16, which have no typed field; otherwise each output goes in the typed field of its datatype. The protocol allows
 * no mix: either every output is raw or none. Thread safe and stateless.
 */
public final class GrpcInferResponseEncoder {
    /** Creates an encoder. */
    public GrpcInferResponseEncoder() {
    }

    /**
     * Encodes a result.
     *
     * @param result the result, while its model version is held
     * @return the response
     * @throws ProtocolException (500) when an output's type has no datatype in the protocol
     */
    public ModelInferResponse encode(InferenceCore.InferResult result) {
        boolean raw = result.request().binaryDataOutput();
        for (Map.Entry<String, Tensor> o : result.outputs().entrySet()) {
            Datatype d = Datatype.of(o.getValue().type());
            if (d == null) {
                throw new ProtocolException(ProtocolException.INTERNAL, "output " + Names.quote(o.getKey())
                        + " is of type " + o.getValue().type() + ", which the protocol has no datatype for");
            }
            raw |= GrpcInferRequestDecoder.fieldOf(d) == null;
        }
        ModelInferResponse.Builder response = ModelInferResponse.newBuilder()
                .setModelName(result.model())
                .setModelVersion(result.version());
        if (result.request().id() != null) {
            response.setId(result.request().id());
        }
        for (Map.Entry<String, Tensor> o : result.outputs().entrySet()) {
            Tensor t = o.getValue();
            InferOutputTensor.Builder out = response.addOutputsBuilder()
                    .setName(o.getKey())
                    .setDatatype(Datatype.of(t.type()).name());
            for (long d : t.shape()) {
                out.addShape(d);
            }
            if (raw) {
                ByteArrayOutputStream bytes = new ByteArrayOutputStream();
                BinaryTensors.encode(t, bytes);
                // the array is not touched again: wrapping it saves a copy of every output
                response.addRawOutputContents(wrap(bytes.toByteArray()));
            } else {
                out.setContents(typed(t));
            }
        }
        return response.build();
    }

    private static ByteString wrap(byte[] bytes) {
        return UnsafeByteOperations.unsafeWrap(bytes);
    }

    private static InferTensorContents typed(Tensor t) {
        InferTensorContents.Builder c = InferTensorContents.newBuilder();
        ElementType type = t.type();
        switch (type) {
            case BOOL -> {
                for (boolean v : t.booleans()) {
                    c.addBoolContents(v);
                }
            }
            case INT8 -> {
                for (byte v : t.bytes()) {
                    c.addIntContents(v);
                }
            }
            case INT16 -> {
                for (short v : t.shorts()) {
                    c.addIntContents(v);
                }
            }
            case INT32 -> {
                for (int v : t.ints()) {
                    c.addIntContents(v);
                }
            }
            case INT64 -> {
                for (long v : t.longs()) {
                    c.addInt64Contents(v);
                }
            }
            case UINT8 -> {
                for (byte v : t.bytes()) {
                    c.addUintContents(Byte.toUnsignedInt(v));
                }
            }
            case UINT16 -> {
                for (short v : t.shorts()) {
                    c.addUintContents(Short.toUnsignedInt(v));
                }
            }
            case UINT32 -> {
                for (int v : t.ints()) {
                    c.addUintContents(v);
                }
            }
            case UINT64 -> {
                for (long v : t.longs()) {
                    c.addUint64Contents(v);
                }
            }
            case FLOAT -> {
                for (float v : t.floats()) {
                    c.addFp32Contents(v);
                }
            }
            case DOUBLE -> {
                for (double v : t.doubles()) {
                    c.addFp64Contents(v);
                }
            }
            case STRING -> {
                for (String v : t.strings()) {
                    c.addBytesContents(ByteString.copyFromUtf8(v));
                }
            }
            default -> throw new IllegalStateException("no typed contents for " + type);
        }
        return c.build();
    }
}
