package io.ortex.benchmarks.serving;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.stream.Stream;

/**
 * The distribution's model server as a user runs it: a copy of the built distribution (without its {@code models/}),
 * its HTTP and gRPC ports free ports on 127.0.0.1, the example EP granted virtual devices, started as
 * {@code bin/ortex serve} with its log (standard error, every record from INFO up) in {@code serve.log}, and stopped
 * with SIGTERM as a service manager stops it. Not thread safe, except {@link #log()} and {@link #get(String)}.
 */
final class ServerProcess implements AutoCloseable {
    private static final Duration START_LIMIT = Duration.ofSeconds(120);

    private final Path home;
    private final int httpPort;
    private final int grpcPort;
    private final Path log;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private Process process;

    private ServerProcess(Path home, int httpPort, int grpcPort) {
        this.home = home;
        this.httpPort = httpPort;
        this.grpcPort = grpcPort;
        this.log = home.resolve("serve.log");
    }

    /**
     * Copies the distribution into a new folder and configures the copy.
     *
     * @param dist the built distribution ({@code assembly/target/ortex})
     * @param home the new folder, which must not exist or be empty
     * @param drainLimitSeconds the runtime's {@code drain.limit.seconds}, 0 to keep the distribution's
     * @return the server, not started
     * @throws IOException when copying fails
     * @throws IllegalArgumentException when {@code dist} is not a built distribution
     */
    static ServerProcess prepare(Path dist, Path home, int drainLimitSeconds) throws IOException {
        if (!Files.isExecutable(dist.resolve("bin/ortex")) || !Files.isDirectory(dist.resolve("examples"))) {
            throw new IllegalArgumentException(dist + " is not a built distribution (no bin/ortex or examples/): "
                    + "build it with 'mvn -B package -pl assembly -am -DskipTests'");
        }
        try (Stream<Path> files = Files.walk(dist)) {
            for (Path p : files.filter(p -> !p.startsWith(dist.resolve("models"))).toList()) {
                Path to = home.resolve(dist.relativize(p).toString());
                if (Files.isDirectory(p)) {
                    Files.createDirectories(to);
                } else {
                    Files.copy(p, to, StandardCopyOption.COPY_ATTRIBUTES);
                }
            }
        }
        Files.createDirectories(home.resolve("models"));
        int grpc = freePort();
        replaceLine(home.resolve("conf/io.ortex.serve.cfg"), "grpc.port=", "grpc.port=" + grpc);
        replaceLine(home.resolve("conf/io.ortex.serve.cfg"), "grpc.host=", "grpc.host=127.0.0.1");
        replaceLine(home.resolve("conf/io.ortex.runtime.cfg"), "virtual.grants=", "virtual.grants=io.ortex.ep.example");
        if (drainLimitSeconds > 0) {
            replaceLine(home.resolve("conf/io.ortex.runtime.cfg"), "drain.limit.seconds=",
                    "drain.limit.seconds=" + drainLimitSeconds);
        }
        return new ServerProcess(home, freePort(), grpc);
    }

    private static void replaceLine(Path file, String prefix, String line) throws IOException {
        StringBuilder sb = new StringBuilder();
        boolean found = false;
        for (String l : Files.readAllLines(file)) {
            if (l.startsWith(prefix)) {
                l = line;
                found = true;
            }
            sb.append(l).append('\n');
        }
        if (!found) {
            throw new IllegalStateException(file + " has no line " + prefix + "...");
        }
        Files.writeString(file, sb.toString());
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    /**
     * Starts {@code bin/ortex serve} on the JDK running this program and waits until it is ready.
     *
     * @throws IOException when it cannot start or is not ready within two minutes (the log is in the message)
     * @throws InterruptedException when interrupted while waiting
     */
    void start() throws IOException, InterruptedException {
        ProcessBuilder pb = new ProcessBuilder(home.resolve("bin/ortex").toString(), "serve");
        pb.environment().put("JAVA_HOME", System.getProperty("java.home"));
        pb.environment().remove("ORTEX_MODULE_PATH");
        pb.environment().put("JAVA_OPTS", "-Dorg.osgi.service.http.port=" + httpPort
                + " -Dorg.apache.felix.http.host=127.0.0.1");
        pb.redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")));
        pb.redirectErrorStream(true);
        pb.redirectOutput(log.toFile());
        process = pb.start();
        await("the server is ready", () -> get("/v2/health/ready") == 200, START_LIMIT);
    }

    /**
     * Waits for a condition, polling every 50 ms.
     *
     * @param what what is awaited, for the error
     * @param condition the condition
     * @param limit how long to wait at most
     * @throws IOException when the time is up or the server died (with its log)
     * @throws InterruptedException when interrupted
     */
    void await(String what, BooleanSupplier condition, Duration limit) throws IOException, InterruptedException {
        long end = System.nanoTime() + limit.toNanos();
        while (!condition.getAsBoolean()) {
            if (process != null && !process.isAlive()) {
                throw new IOException("the server exited (" + process.exitValue() + ") while waiting until " + what
                        + "; its log:\n" + log());
            }
            if (System.nanoTime() > end) {
                throw new IOException("waited " + limit.toSeconds() + " s in vain until " + what + "; the log:\n"
                        + log());
            }
            Thread.sleep(50);
        }
    }

    /**
     * GETs a path of the REST endpoint.
     *
     * @param path the path
     * @return the status, or -1 when nothing answered
     */
    int get(String path) {
        try {
            return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + httpPort + path))
                    .timeout(Duration.ofSeconds(10)).GET().build(), HttpResponse.BodyHandlers.discarding())
                    .statusCode();
        } catch (IOException e) {
            return -1;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return -1;
        }
    }

    /**
     * GETs a text page of the REST endpoint, such as {@code /metrics}.
     *
     * @param path the path
     * @return the body, or empty when nothing answered
     */
    String text(String path) {
        try {
            return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + httpPort + path))
                    .timeout(Duration.ofSeconds(10)).GET().build(), HttpResponse.BodyHandlers.ofString()).body();
        } catch (IOException e) {
            return "";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "";
        }
    }

    /**
     * Reads the server's log so far.
     *
     * @return the log
     */
    String log() {
        try {
            return Files.readString(log, StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "(cannot read " + log + ": " + e + ")";
        }
    }

    /**
     * Gets the distribution folder of this server.
     *
     * @return the folder
     */
    Path home() {
        return home;
    }

    /**
     * Gets the HTTP port.
     *
     * @return the port on 127.0.0.1
     */
    int httpPort() {
        return httpPort;
    }

    /**
     * Gets the gRPC port.
     *
     * @return the port on 127.0.0.1
     */
    int grpcPort() {
        return grpcPort;
    }

    /** Stops the server with SIGTERM, and kills it when it has not ended 30 s later. */
    @Override
    public void close() {
        if (process == null) {
            return;
        }
        process.destroy();
        try {
            if (!process.waitFor(30, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                process.waitFor(10, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }
}
