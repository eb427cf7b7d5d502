package io.ortex.serve.internal;

import com.google.protobuf.ByteString;
import inference.GrpcPredictV2.InferTensorContents;
import inference.GrpcPredictV2.ModelInferRequest;
import inference.GrpcPredictV2.ModelInferRequest.InferInputTensor;
import io.ortex.api.Names;
import io.ortex.api.Tensor;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Decodes a gRPC {@code ModelInferRequest} into the {@link InferRequest} the REST side decodes too. Each input comes
 * either in the typed field of its datatype ({@code contents.fp32_contents}, ...) or, for every input at once, in
 * {@code raw_input_contents} in the binary extension's layout ({@link BinaryTensors}); FP16 and BF16 have no typed
 * field and come raw only. The element count of a shape is checked against the limit before anything is allocated,
 * then the contents against the shape, the field against the datatype, and every integer against its datatype's
 * range. Thread safe and stateless.
 */
public final class GrpcInferRequestDecoder {
    private final long maxElements;

    /**
     * Creates a decoder.
     *
     * @param maxElements the most elements one input may hold
     */
    public GrpcInferRequestDecoder(long maxElements) {
        this.maxElements = maxElements;
    }

    /**
     * Decodes a request.
     *
     * @param request the request
     * @return the request's inputs and outputs; {@link InferRequest#binaryDataOutput()} is true when the inputs came
     *     raw, so the outputs go raw too
     * @throws ProtocolException (400, or 413 for too many elements) naming the input at fault
     */
    public InferRequest decode(ModelInferRequest request) {
        if (request.getInputsCount() == 0) {
            throw ProtocolException.badRequest("the request has no inputs");
        }
        int rawCount = request.getRawInputContentsCount();
        boolean raw = rawCount > 0;
        if (raw && rawCount != request.getInputsCount()) {
            throw ProtocolException.badRequest("raw_input_contents has " + rawCount + " entries for "
                    + request.getInputsCount() + " inputs (one per input, in the order of inputs)");
        }
        Set<String> names = new HashSet<>();
        List<InferRequest.Input> inputs = new ArrayList<>();
        for (int i = 0; i < request.getInputsCount(); i++) {
            InferInputTensor in = request.getInputs(i);
            String name = in.getName();
            if (name.isEmpty()) {
                throw ProtocolException.badRequest("input #" + i + " has no name");
            }
            if (!names.add(name)) {
                throw ProtocolException.badRequest("input " + Names.quote(name) + " is given twice");
            }
            if (in.getDatatype().isEmpty()) {
                throw ProtocolException.badRequest("input " + Names.quote(name) + " has no datatype");
            }
            Datatype datatype = Datatype.parse(in.getDatatype(), name);
            long[] shape = shape(in);
            int count = InferRequestDecoder.elementCount(name, shape, maxElements);
            Tensor tensor;
            if (raw) {
                if (in.hasContents()) {
                    throw ProtocolException.badRequest("input " + Names.quote(name) + " has contents, but the "
                            + "request has raw_input_contents (then no input may have contents)");
                }
                ByteString bytes = request.getRawInputContents(i);
                tensor = BinaryTensors.decode(name, datatype, shape, count, bytes.toByteArray(), 0, bytes.size(),
                        "raw_input_contents size");
            } else {
                tensor = Tensor.of(datatype.elementType(), shape, typed(name, datatype, shape, count,
                        in.getContents()));
            }
            inputs.add(new InferRequest.Input(name, datatype, tensor));
        }
        List<InferRequest.RequestedOutput> outputs = new ArrayList<>();
        for (int i = 0; i < request.getOutputsCount(); i++) {
            String name = request.getOutputs(i).getName();
            if (name.isEmpty()) {
                throw ProtocolException.badRequest("output #" + i + " has no name");
            }
            outputs.add(new InferRequest.RequestedOutput(name, null));
        }
        return new InferRequest(request.getId().isEmpty() ? null : request.getId(), inputs, outputs, raw);
    }

    private static long[] shape(InferInputTensor in) {
        if (in.getShapeCount() > InferRequestDecoder.MAX_NESTING) {
            throw ProtocolException.badRequest("input " + Names.quote(in.getName()) + ": shape has "
                    + in.getShapeCount() + " dimensions, more than " + InferRequestDecoder.MAX_NESTING);
        }
        long[] shape = new long[in.getShapeCount()];
        for (int d = 0; d < shape.length; d++) {
            shape[d] = in.getShape(d);
            if (shape[d] < 0) {
                throw ProtocolException.badRequest("input " + Names.quote(in.getName()) + ": shape element "
                        + shape[d] + " is not a dimension (an integer of at least 0)");
            }
        }
        return shape;
    }

    /** The values of an input's typed contents, after checking that only its datatype's field is filled. */
    private static Object typed(String name, Datatype datatype, long[] shape, int count, InferTensorContents c) {
        String field = fieldOf(datatype);
        if (field == null) {
            throw ProtocolException.badRequest("input " + Names.quote(name) + ": " + datatype + " has no typed "
                    + "contents field in the protocol; send it in raw_input_contents");
        }
        for (String other : filledFields(c)) {
            if (!other.equals(field)) {
                throw ProtocolException.badRequest("input " + Names.quote(name) + ": datatype " + datatype
                        + " takes contents." + field + ", but the request has contents." + other);
            }
        }
        int given = switch (datatype) {
            case BOOL -> c.getBoolContentsCount();
            case INT8, INT16, INT32 -> c.getIntContentsCount();
            case INT64 -> c.getInt64ContentsCount();
            case UINT8, UINT16, UINT32 -> c.getUintContentsCount();
            case UINT64 -> c.getUint64ContentsCount();
            case FP32 -> c.getFp32ContentsCount();
            case FP64 -> c.getFp64ContentsCount();
            case BYTES -> c.getBytesContentsCount();
            case FP16, BF16 -> throw new IllegalStateException("no typed field for " + datatype);
        };
        if (given != count) {
            throw ProtocolException.badRequest("input " + Names.quote(name) + ": shape " + Shapes.text(shape)
                    + " takes " + count + " elements, contents." + field + " has " + given);
        }
        return switch (datatype) {
            case BOOL -> {
                boolean[] a = new boolean[count];
                for (int i = 0; i < count; i++) {
                    a[i] = c.getBoolContents(i);
                }
                yield a;
            }
            case INT8 -> {
                byte[] a = new byte[count];
                for (int i = 0; i < count; i++) {
                    a[i] = (byte) inRange(name, datatype, i, c.getIntContents(i), Byte.MIN_VALUE, Byte.MAX_VALUE);
                }
                yield a;
            }
            case INT16 -> {
                short[] a = new short[count];
                for (int i = 0; i < count; i++) {
                    a[i] = (short) inRange(name, datatype, i, c.getIntContents(i), Short.MIN_VALUE, Short.MAX_VALUE);
                }
                yield a;
            }
            case INT32 -> toInts(c.getIntContentsList());
            case INT64 -> toLongs(c.getInt64ContentsList());
            case UINT8 -> {
                byte[] a = new byte[count];
                for (int i = 0; i < count; i++) {
                    a[i] = (byte) inRange(name, datatype, i, Integer.toUnsignedLong(c.getUintContents(i)), 0, 0xff);
                }
                yield a;
            }
            case UINT16 -> {
                short[] a = new short[count];
                for (int i = 0; i < count; i++) {
                    a[i] = (short) inRange(name, datatype, i, Integer.toUnsignedLong(c.getUintContents(i)), 0,
                            0xffff);
                }
                yield a;
            }
            case UINT32 -> toInts(c.getUintContentsList());
            case UINT64 -> toLongs(c.getUint64ContentsList());
            case FP32 -> {
                float[] a = new float[count];
                for (int i = 0; i < count; i++) {
                    a[i] = c.getFp32Contents(i);
                }
                yield a;
            }
            case FP64 -> {
                double[] a = new double[count];
                for (int i = 0; i < count; i++) {
                    a[i] = c.getFp64Contents(i);
                }
                yield a;
            }
            case BYTES -> {
                String[] a = new String[count];
                for (int i = 0; i < count; i++) {
                    a[i] = c.getBytesContents(i).toStringUtf8();
                }
                yield a;
            }
            case FP16, BF16 -> throw new IllegalStateException("no typed field for " + datatype);
        };
    }

    private static long inRange(String name, Datatype datatype, int index, long value, long min, long max) {
        if (value < min || value > max) {
            throw ProtocolException.badRequest("input " + Names.quote(name) + ": element " + index + ", " + value
                    + ", is out of the range of " + datatype + " (" + min + " to " + max + ")");
        }
        return value;
    }

    private static int[] toInts(List<Integer> list) {
        int[] a = new int[list.size()];
        for (int i = 0; i < a.length; i++) {
            a[i] = list.get(i);
        }
        return a;
    }

    private static long[] toLongs(List<Long> list) {
        long[] a = new long[list.size()];
        for (int i = 0; i < a.length; i++) {
            a[i] = list.get(i);
        }
        return a;
    }

    /**
     * Names the typed contents field that carries a datatype.
     *
     * @param datatype the datatype
     * @return the field's name, or null for FP16 and BF16, which have none
     */
    static String fieldOf(Datatype datatype) {
        return switch (datatype) {
            case BOOL -> "bool_contents";
            case INT8, INT16, INT32 -> "int_contents";
            case INT64 -> "int64_contents";
            case UINT8, UINT16, UINT32 -> "uint_contents";
            case UINT64 -> "uint64_contents";
            case FP32 -> "fp32_contents";
            case FP64 -> "fp64_contents";
            case BYTES -> "bytes_contents";
            case FP16, BF16 -> null;
        };
    }

    private static List<String> filledFields(InferTensorContents c) {
        List<String> filled = new ArrayList<>();
        if (c.getBoolContentsCount() > 0) {
            filled.add("bool_contents");
        }
        if (c.getIntContentsCount() > 0) {
            filled.add("int_contents");
        }
        if (c.getInt64ContentsCount() > 0) {
            filled.add("int64_contents");
        }
        if (c.getUintContentsCount() > 0) {
            filled.add("uint_contents");
        }
        if (c.getUint64ContentsCount() > 0) {
            filled.add("uint64_contents");
        }
        if (c.getFp32ContentsCount() > 0) {
            filled.add("fp32_contents");
        }
        if (c.getFp64ContentsCount() > 0) {
            filled.add("fp64_contents");
        }
        if (c.getBytesContentsCount() > 0) {
            filled.add("bytes_contents");
        }
        return filled;
    }
}
