package io.ortex.serve.internal;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.StreamReadFeature;
import io.ortex.api.InvalidArgumentException;
import io.ortex.api.Names;
import io.ortex.api.Tensor;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Decodes the body of {@code POST /v2/models/{name}/infer}: the JSON request of the Open Inference Protocol v2 and,
 * when the header {@code Inference-Header-Content-Length} is given, the binary tensor data that follows the JSON.
 * Input {@code data} may be flat or nested (row-major either way). Everything a client declares is checked before
 * memory is allocated for it: the element count of a shape, the binary sizes against the body, the data against the
 * shape, every element against the datatype. Thread safe and stateless.
 */
public final class InferRequestDecoder {
    /** The JSON nesting a request may have: the request, its inputs, and nested data up to rank 60. */
    static final int MAX_NESTING = 64;

    private final JsonFactory json;
    private final long maxElements;

    /**
     * Creates a decoder.
     *
     * @param maxElements the most elements one input may hold
     */
    public InferRequestDecoder(long maxElements) {
        this.maxElements = Math.min(maxElements, Tensor.MAX_ELEMENTS);
        this.json = JsonFactory.builder()
                .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
                .streamReadConstraints(StreamReadConstraints.builder().maxNestingDepth(MAX_NESTING).build())
                .build();
    }

    /**
     * Decodes a request.
     *
     * @param body the whole body
     * @param headerLength the value of {@code Inference-Header-Content-Length}, or null when the body is all JSON
     * @return the request
     * @throws ProtocolException (400, or 413 for too many elements) naming what is wrong
     */
    public InferRequest decode(byte[] body, String headerLength) {
        int jsonLength = jsonLength(body, headerLength);
        List<PendingInput> pending = new ArrayList<>();
        List<InferRequest.RequestedOutput> outputs = new ArrayList<>();
        String id = null;
        boolean binaryOutput = false;
        try (JsonParser p = json.createParser(body, 0, jsonLength)) {
            expect(p.nextToken(), JsonToken.START_OBJECT, "the request");
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String field = p.currentName();
                JsonToken t = p.nextToken();
                switch (field) {
                    case "id" -> id = text(p, t, "the request's id");
                    case "parameters" -> binaryOutput = requestParameters(p, t);
                    case "inputs" -> {
                        expect(t, JsonToken.START_ARRAY, "inputs");
                        while (p.nextToken() != JsonToken.END_ARRAY) {
                            pending.add(input(p, pending.size()));
                        }
                    }
                    case "outputs" -> {
                        expect(t, JsonToken.START_ARRAY, "outputs");
                        while (p.nextToken() != JsonToken.END_ARRAY) {
                            outputs.add(output(p, outputs.size()));
                        }
                    }
                    default -> p.skipChildren();
                }
            }
            if (p.nextToken() != null) {
                throw ProtocolException.badRequest("the request has content after its JSON object");
            }
        } catch (JsonProcessingException e) {
            String where = e.getLocation() == null ? "" : " at line " + e.getLocation().getLineNr() + ", column "
                    + e.getLocation().getColumnNr();
            throw ProtocolException.badRequest("the request is not valid JSON: " + Names.oneLine(e.getOriginalMessage())
                    + where);
        } catch (IOException e) {
            throw ProtocolException.badRequest("the request cannot be read: " + Names.oneLine(e.getMessage()));
        }
        if (pending.isEmpty()) {
            throw ProtocolException.badRequest("the request has no inputs");
        }
        return new InferRequest(id, tensors(pending, body, jsonLength, headerLength != null), outputs, binaryOutput);
    }

    private static int jsonLength(byte[] body, String headerLength) {
        if (headerLength == null) {
            return body.length;
        }
        long n;
        try {
            n = Long.parseLong(headerLength.trim());
        } catch (NumberFormatException e) {
            throw ProtocolException.badRequest("Inference-Header-Content-Length " + Names.quote(headerLength)
                    + " is not a number");
        }
        if (n <= 0 || n > body.length) {
            throw ProtocolException.badRequest("Inference-Header-Content-Length " + n + " does not fit the body of "
                    + body.length + " bytes");
        }
        return (int) n;
    }

    private List<InferRequest.Input> tensors(List<PendingInput> pending, byte[] body, int jsonLength,
            boolean binary) {
        Set<String> names = new HashSet<>();
        long binaryTotal = 0;
        for (PendingInput in : pending) {
            if (!names.add(in.name)) {
                throw ProtocolException.badRequest("input " + Names.quote(in.name) + " is given twice");
            }
            if (in.binarySize >= 0) {
                if (!binary) {
                    throw ProtocolException.badRequest("input " + Names.quote(in.name) + " has binary_data_size, but "
                            + "the request has no Inference-Header-Content-Length header");
                }
                binaryTotal += in.binarySize;
            }
        }
        long binaryBytes = (long) body.length - jsonLength;
        if (binary && binaryTotal != binaryBytes) {
            throw ProtocolException.badRequest("the inputs' binary_data_size add up to " + binaryTotal
                    + " bytes, but " + binaryBytes + " bytes follow the JSON header");
        }
        List<InferRequest.Input> inputs = new ArrayList<>();
        int offset = jsonLength;
        for (PendingInput in : pending) {
            int count = elementCount(in);
            Tensor tensor;
            if (in.binarySize >= 0) {
                tensor = BinaryTensors.decode(in.name, in.datatype, in.shape, count, body, offset,
                        (int) in.binarySize, "binary_data_size");
                offset += (int) in.binarySize;
            } else {
                if (in.values.size() != count) {
                    throw ProtocolException.badRequest("input " + Names.quote(in.name) + ": shape "
                            + Shapes.text(in.shape) + " takes " + count + " elements, data has "
                            + in.values.size());
                }
                tensor = in.values.toTensor(in.name, in.datatype, in.shape);
            }
            inputs.add(new InferRequest.Input(in.name, in.datatype, tensor));
        }
        return inputs;
    }

    private int elementCount(PendingInput in) {
        return elementCount(in.name, in.shape, maxElements);
    }

    /**
     * Counts the elements of an input's declared shape, before anything is allocated for them.
     *
     * @param input the input's name, for messages
     * @param shape the declared shape
     * @param maxElements the most elements one input may hold
     * @return the element count
     * @throws ProtocolException 400 when the shape is not valid, 413 when it holds more than the limit
     */
    static int elementCount(String input, long[] shape, long maxElements) {
        int count;
        try {
            count = Tensor.checkedElementCount(shape);
        } catch (InvalidArgumentException e) {
            throw ProtocolException.badRequest("input " + Names.quote(input) + ": shape "
                    + Shapes.text(shape) + " is not a valid shape: " + Names.oneLine(e.getMessage()));
        }
        long limit = Math.min(maxElements, Tensor.MAX_ELEMENTS);
        if (count > limit) {
            throw new ProtocolException(ProtocolException.TOO_LARGE, "input " + Names.quote(input) + ": shape "
                    + Shapes.text(shape) + " takes " + count + " elements, more than the limit of " + limit);
        }
        return count;
    }

    private static boolean requestParameters(JsonParser p, JsonToken t) throws IOException {
        expect(t, JsonToken.START_OBJECT, "the request's parameters");
        boolean binaryOutput = false;
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String name = p.currentName();
            JsonToken v = p.nextToken();
            if ("binary_data_output".equals(name)) {
                binaryOutput = bool(v, "the parameter binary_data_output");
            } else {
                p.skipChildren();
            }
        }
        return binaryOutput;
    }

    private PendingInput input(JsonParser p, int index) throws IOException {
        expect(p.currentToken(), JsonToken.START_OBJECT, "input #" + index);
        PendingInput in = new PendingInput(maxElements);
        String what = "input #" + index;
        boolean hasData = false;
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String field = p.currentName();
            JsonToken t = p.nextToken();
            switch (field) {
                case "name" -> {
                    in.name = text(p, t, "the name of " + what);
                    what = "input " + Names.quote(in.name);
                }
                case "datatype" -> in.datatypeName = text(p, t, "the datatype of " + what);
                case "shape" -> in.shape = shape(p, t, what);
                case "parameters" -> in.binarySize = inputParameters(p, t, what);
                case "data" -> {
                    hasData = true;
                    expect(t, JsonToken.START_ARRAY, "the data of " + what);
                    data(p, in.values, what);
                }
                default -> p.skipChildren();
            }
        }
        if (in.name == null) {
            throw ProtocolException.badRequest("input #" + index + " has no name");
        }
        if (in.datatypeName == null) {
            throw ProtocolException.badRequest(what + " has no datatype");
        }
        in.datatype = Datatype.parse(in.datatypeName, in.name);
        if (in.shape == null) {
            throw ProtocolException.badRequest(what + " has no shape");
        }
        if (hasData == (in.binarySize >= 0)) {
            throw ProtocolException.badRequest(what + (hasData ? " has both data and binary_data_size"
                    : " has neither data nor binary_data_size"));
        }
        return in;
    }

    private static long inputParameters(JsonParser p, JsonToken t, String what) throws IOException {
        expect(t, JsonToken.START_OBJECT, "the parameters of " + what);
        long size = -1;
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String name = p.currentName();
            JsonToken v = p.nextToken();
            if ("binary_data_size".equals(name)) {
                if (v != JsonToken.VALUE_NUMBER_INT || p.getNumberType() == JsonParser.NumberType.BIG_INTEGER
                        || p.getLongValue() < 0 || p.getLongValue() > Integer.MAX_VALUE) {
                    throw ProtocolException.badRequest(what + ": binary_data_size " + Names.quote(p.getText())
                            + " is not a size from 0 to " + Integer.MAX_VALUE);
                }
                size = p.getLongValue();
            } else {
                p.skipChildren();
            }
        }
        return size;
    }

    private static long[] shape(JsonParser p, JsonToken t, String what) throws IOException {
        expect(t, JsonToken.START_ARRAY, "the shape of " + what);
        long[] dims = new long[8];
        int rank = 0;
        while (p.nextToken() != JsonToken.END_ARRAY) {
            if (p.currentToken() != JsonToken.VALUE_NUMBER_INT
                    || p.getNumberType() == JsonParser.NumberType.BIG_INTEGER || p.getLongValue() < 0) {
                throw ProtocolException.badRequest(what + ": shape element " + Names.quote(p.getText())
                        + " is not a dimension (an integer of at least 0)");
            }
            if (rank == MAX_NESTING) {
                throw ProtocolException.badRequest(what + ": shape has more than " + MAX_NESTING + " dimensions");
            }
            if (rank == dims.length) {
                dims = java.util.Arrays.copyOf(dims, dims.length * 2);
            }
            dims[rank++] = p.getLongValue();
        }
        return java.util.Arrays.copyOf(dims, rank);
    }

    private static void data(JsonParser p, JsonValues values, String what) throws IOException {
        int depth = 1;
        while (depth > 0) {
            JsonToken t = p.nextToken();
            if (t == null) {
                throw ProtocolException.badRequest("the data of " + what + " ends before its arrays close");
            }
            switch (t) {
                case START_ARRAY -> depth++;
                case END_ARRAY -> depth--;
                case VALUE_NUMBER_INT -> {
                    if (p.getNumberType() == JsonParser.NumberType.BIG_INTEGER) {
                        values.addBig(p.getBigIntegerValue(), what);
                    } else {
                        values.addLong(p.getLongValue(), what);
                    }
                }
                case VALUE_NUMBER_FLOAT -> values.addDouble(p.getDoubleValue(), what);
                case VALUE_TRUE, VALUE_FALSE -> values.addBoolean(t == JsonToken.VALUE_TRUE, what);
                case VALUE_STRING -> values.addString(p.getText(), what);
                default -> throw ProtocolException.badRequest("the data of " + what + " holds " + t.asString()
                        + " (" + t + "), which is not a tensor element");
            }
        }
    }

    private static String text(JsonParser p, JsonToken t, String what) throws IOException {
        if (t != JsonToken.VALUE_STRING) {
            throw ProtocolException.badRequest(what + " is not a string");
        }
        return p.getText();
    }

    private static boolean bool(JsonToken t, String what) {
        if (t != JsonToken.VALUE_TRUE && t != JsonToken.VALUE_FALSE) {
            throw ProtocolException.badRequest(what + " is not true or false");
        }
        return t == JsonToken.VALUE_TRUE;
    }

    private static void expect(JsonToken actual, JsonToken expected, String what) {
        if (actual != expected) {
            throw ProtocolException.badRequest(what + " is not a JSON " + (expected == JsonToken.START_OBJECT
                    ? "object" : "array"));
        }
    }

    private static InferRequest.RequestedOutput output(JsonParser p, int index) throws IOException {
        expect(p.currentToken(), JsonToken.START_OBJECT, "output #" + index);
        String name = null;
        Boolean binary = null;
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String field = p.currentName();
            JsonToken t = p.nextToken();
            if ("name".equals(field)) {
                name = text(p, t, "the name of output #" + index);
            } else if ("parameters".equals(field)) {
                expect(t, JsonToken.START_OBJECT, "the parameters of output #" + index);
                while (p.nextToken() == JsonToken.FIELD_NAME) {
                    String param = p.currentName();
                    JsonToken v = p.nextToken();
                    if ("binary_data".equals(param)) {
                        binary = bool(v, "the parameter binary_data of output #" + index);
                    } else {
                        p.skipChildren();
                    }
                }
            } else {
                p.skipChildren();
            }
        }
        if (name == null) {
            throw ProtocolException.badRequest("output #" + index + " has no name");
        }
        return new InferRequest.RequestedOutput(name, binary);
    }

    /** An input as parsed, before its tensor is built. */
    private static final class PendingInput {
        final JsonValues values;
        String name;
        String datatypeName;
        Datatype datatype;
        long[] shape;
        long binarySize = -1;

        PendingInput(long maxElements) {
            values = new JsonValues(maxElements);
        }
    }
}
