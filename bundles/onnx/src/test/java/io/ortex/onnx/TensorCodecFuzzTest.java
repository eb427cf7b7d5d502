package io.ortex.onnx;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.ortex.api.OrtexException;
import io.ortex.api.Tensor;
import java.util.Arrays;

/**
 * Fuzzes the TensorProto codec with arbitrary bytes (a {@code .pb} tensor file's content): parsing and decoding must
 * end in a tensor or in Ortex's own exception with a message; a decoded tensor must encode again and decode to the
 * same elements.
 */
class TensorCodecFuzzTest {
    @FuzzTest(maxDuration = "5m")
    void decodeTensor(byte[] bytes) {
        Tensor t;
        try {
            t = TensorCodec.parse(bytes, "fuzzed tensor");
        } catch (OrtexException e) {
            FuzzChecks.requireMessage(e);
            return;
        }
        Tensor again = TensorCodec.fromProto(TensorCodec.toProto(t, "t"));
        if (again.type() != t.type() || !Arrays.equals(again.shape(), t.shape())
                || !TensorCodec.toProto(again, "t").equals(TensorCodec.toProto(t, "t"))) {
            throw new AssertionError("a decoded " + t + " does not survive encoding: " + again);
        }
    }
}
