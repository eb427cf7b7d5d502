package io.ortex.ep.example;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.ortex.api.OrtexException;
import io.ortex.ep.example.program.Program;
import io.ortex.ep.example.program.ProgramCodec;
import java.util.Arrays;

/**
 * Fuzzes the example EP's compiled-program codec with arbitrary bytes (an EPContext payload): reading must give a
 * program or Ortex's own exception with a message, with shared blobs that are missing, empty or present; a program
 * read must write back to the same bytes.
 */
class ProgramCodecFuzzTest {
    @FuzzTest(maxDuration = "5m")
    void readProgram(byte[] bytes) {
        Program p;
        try {
            p = ProgramCodec.read(bytes, key -> key.length() % 2 == 0 ? new byte[0] : new byte[64]);
        } catch (OrtexException e) {
            String message = e.getMessage();
            if (message == null || message.isBlank() || message.chars().anyMatch(c -> c < 0x20)) {
                throw new AssertionError("an exception without a one-line message: " + message, e);
            }
            return;
        }
        byte[] again = ProgramCodec.write(p);
        if (!Arrays.equals(ProgramCodec.write(ProgramCodec.read(again)), again)) {
            throw new AssertionError("a program read from fuzzed bytes does not write back stably");
        }
    }
}
