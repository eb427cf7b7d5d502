package io.ortex.itests;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A copy of the distribution (without models/) whose {@code bin/ortex} runs as a process with the Gogo shell on piped
 * standard input: commands are written one per line, and each answer is read up to a marker echoed after it. Standard
 * error is merged into standard output. Closing stops the shell (end of input), which stops the framework.
 */
final class ShellProcess implements AutoCloseable {
    private final Path home;
    private final Process process;
    private final Writer in;
    private final StringBuffer out = new StringBuffer();
    private final long startNanos;
    private int markers;

    private ShellProcess(Path home, Process process, long startNanos) {
        this.home = home;
        this.process = process;
        this.startNanos = startNanos;
        this.in = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
        Thread reader = new Thread(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(process.getInputStream(),
                    StandardCharsets.UTF_8))) {
                for (String line = r.readLine(); line != null; line = r.readLine()) {
                    out.append(line).append('\n');
                }
            } catch (IOException e) {
                out.append("(reading failed: ").append(e).append(")\n");
            }
        }, "ortex-shell-reader");
        reader.setDaemon(true);
        reader.start();
    }

    /**
     * Copies the built distribution into a folder, leaving out the demo model, and gives the copy's gRPC endpoint a
     * free port of its own ({@code grpc.port} in {@code conf/io.ortex.serve.cfg}; see {@link #grpcPort(Path)}), so
     * that shells started by tests side by side do not collide.
     *
     * @param target the new distribution folder
     * @return the folder
     */
    static Path copyDistribution(Path target) throws IOException {
        Path dist = Path.of(System.getProperty("ortex.dist", "../assembly/target/ortex")).toAbsolutePath();
        try (Stream<Path> files = Files.walk(dist)) {
            for (Path p : files.filter(p -> !p.startsWith(dist.resolve("models"))).toList()) {
                Path to = target.resolve(dist.relativize(p).toString());
                if (Files.isDirectory(p)) {
                    Files.createDirectories(to);
                } else {
                    Files.copy(p, to, StandardCopyOption.COPY_ATTRIBUTES);
                }
            }
        }
        Path serveConfig = target.resolve("conf/io.ortex.serve.cfg");
        String config = Files.readString(serveConfig);
        if (!config.contains("\ngrpc.port=8081\n")) {
            throw new AssertionError("conf/io.ortex.serve.cfg does not set grpc.port=8081:\n" + config);
        }
        Files.writeString(serveConfig, config.replace("\ngrpc.port=8081\n", "\ngrpc.port=" + FreePorts.next() + "\n"));
        return target;
    }

    /**
     * Reads the gRPC port of a distribution copied by {@link #copyDistribution(Path)}.
     *
     * @param home the distribution folder
     * @return the port
     */
    static int grpcPort(Path home) throws IOException {
        for (String line : Files.readAllLines(home.resolve("conf/io.ortex.serve.cfg"))) {
            if (line.startsWith("grpc.port=")) {
                return Integer.parseInt(line.substring("grpc.port=".length()).strip());
            }
        }
        throw new AssertionError("conf/io.ortex.serve.cfg has no grpc.port");
    }

    /**
     * Starts {@code bin/ortex} of a distribution folder with no arguments.
     *
     * @param home the distribution folder
     * @return the running shell
     */
    static ShellProcess start(Path home) throws IOException {
        return start(home, httpPortOption());
    }

    /**
     * Starts {@code bin/ortex} of a distribution folder with no arguments and the given JVM options.
     *
     * @param home the distribution folder
     * @param javaOpts the JVM options ({@code JAVA_OPTS})
     * @return the running shell
     */
    static ShellProcess start(Path home, String javaOpts) throws IOException {
        ProcessBuilder pb = new ProcessBuilder(home.resolve("bin/ortex").toString());
        pb.environment().put("JAVA_HOME", System.getProperty("java.home"));
        pb.environment().remove("ORTEX_MODULE_PATH");
        pb.environment().put("JAVA_OPTS", javaOpts);
        pb.redirectErrorStream(true);
        long t0 = System.nanoTime();
        ShellProcess shell = new ShellProcess(home, pb.start(), t0);
        shell.awaitBanner();
        return shell;
    }

    /**
     * The JVM option that gives the shell's model server a free port of its own, so that shells started by tests
     * side by side (and a user's server on the default port) do not collide.
     *
     * @return {@code -Dorg.osgi.service.http.port=N}
     */
    static String httpPortOption() {
        return "-Dorg.osgi.service.http.port=" + FreePorts.next();
    }

    /**
     * Waits for Gogo's welcome banner and the blank line after it, so that no part of the banner is taken for the
     * first command's output. (The prompt that follows ends no line, so it shows up with the first output.)
     */
    private void awaitBanner() {
        long end = System.currentTimeMillis() + 60_000;
        while (out.indexOf("Welcome to Apache Felix Gogo\n\n") < 0) {
            if (!process.isAlive() || System.currentTimeMillis() > end) {
                throw new AssertionError("the shell did not start; output:\n" + out);
            }
            try {
                Thread.sleep(5);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError(e);
            }
        }
    }

    /** The distribution folder. */
    Path home() {
        return home;
    }

    /** Milliseconds since the process was started. */
    long elapsedMillis() {
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos);
    }

    /**
     * Runs one shell command and returns what it printed, without the prompts.
     *
     * @param command the command line
     * @return its output
     */
    String run(String command) throws IOException, InterruptedException {
        String marker = "END-OF-COMMAND-" + ++markers;
        int from = out.length();
        in.write(command + "\n" + "echo " + marker + "\n");
        in.flush();
        long end = System.currentTimeMillis() + 120_000;
        while (true) {
            String seen = out.substring(from);
            int at = seen.indexOf(marker + "\n");
            if (at >= 0 && (at == 0 || seen.charAt(at - 1) == '\n' || seen.startsWith("g! ", at - 3))) {
                return seen.substring(0, at).replace("g! ", "");
            }
            if (!process.isAlive() || System.currentTimeMillis() > end) {
                throw new AssertionError("no answer to '" + command + "'; output so far:\n" + out);
            }
            Thread.sleep(5);
        }
    }

    /** Everything the process printed so far. */
    String output() {
        return out.toString();
    }

    /**
     * Types {@code exit} and waits for the process to end.
     *
     * @return its exit status
     */
    int exit() throws IOException, InterruptedException {
        in.write("exit\n");
        in.flush();
        if (!process.waitFor(60, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new AssertionError("the shell did not stop after exit; output:\n" + out);
        }
        return process.exitValue();
    }

    /** Ends the input, which stops the shell and the framework, and waits for the process. */
    @Override
    public void close() throws IOException, InterruptedException {
        try {
            in.close();
        } catch (IOException alreadyGone) {
            // the process ended first
        }
        if (!process.waitFor(60, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new AssertionError("the shell did not stop at the end of its input; output:\n" + out);
        }
    }
}
