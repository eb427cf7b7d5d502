package io.ortex.shell;

import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;

/** Runs {@link Main#run} in the test's JVM and keeps what it printed. */
record Cli(int status, String out, String err) {
    /** Runs the command line, failing the test when it takes more than 30 seconds. */
    static Cli run(String... args) {
        return assertTimeoutPreemptively(Duration.ofSeconds(30), () -> {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            ByteArrayOutputStream err = new ByteArrayOutputStream();
            try (PrintStream o = new PrintStream(out, true, StandardCharsets.UTF_8);
                 PrintStream e = new PrintStream(err, true, StandardCharsets.UTF_8)) {
                int status = Main.run(args, o, e);
                return new Cli(status, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
            }
        }, () -> "ortex " + String.join(" ", args) + " did not finish in 30 s");
    }

    /** The lines written to standard output. */
    List<String> outLines() {
        return out.lines().toList();
    }

    /** The lines written to standard error. */
    List<String> errLines() {
        return err.lines().toList();
    }

    @Override
    public String toString() {
        return "exit " + status + "\n--- stdout\n" + out + "--- stderr\n" + err;
    }
}
