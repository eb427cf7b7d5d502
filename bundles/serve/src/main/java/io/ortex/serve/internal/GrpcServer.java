package io.ortex.serve.internal;

import io.grpc.BindableService;
import io.grpc.Server;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.netty.shaded.io.netty.channel.EventLoopGroup;
import io.grpc.netty.shaded.io.netty.channel.nio.NioEventLoopGroup;
import io.grpc.netty.shaded.io.netty.channel.socket.nio.NioServerSocketChannel;
import io.grpc.netty.shaded.io.netty.util.concurrent.DefaultThreadFactory;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A plain-text (no TLS) gRPC server for one service, on grpc-java's Netty transport over Java NIO (no native
 * library is loaded), with threads of its own that {@link #close()} ends: one accepting connections, a few doing the
 * network I/O and a pool running the calls. Messages larger than the limit are refused with
 * {@code RESOURCE_EXHAUSTED} before they are parsed.
 */
public final class GrpcServer implements AutoCloseable {
    /** How long {@link #close()} lets running calls finish before it cancels them. */
    private static final long GRACE_SECONDS = 5;

    private final Server server;
    private final EventLoopGroup boss;
    private final EventLoopGroup workers;
    private final ExecutorService calls;

    private GrpcServer(Server server, EventLoopGroup boss, EventLoopGroup workers, ExecutorService calls) {
        this.server = server;
        this.boss = boss;
        this.workers = workers;
        this.calls = calls;
    }

    /**
     * Starts a server.
     *
     * @param host the address to bind, a host name or literal address
     * @param port the port, or 0 for any free one
     * @param maxMessageBytes the largest request message
     * @param service the service
     * @return the running server
     * @throws IOException when it cannot listen there (the port is taken, the address is not local, ...)
     */
    public static GrpcServer start(String host, int port, int maxMessageBytes, BindableService service)
            throws IOException {
        EventLoopGroup boss = new NioEventLoopGroup(1, new DefaultThreadFactory("ortex-grpc-accept", true));
        EventLoopGroup workers = new NioEventLoopGroup(Math.min(4, Runtime.getRuntime().availableProcessors()),
                new DefaultThreadFactory("ortex-grpc-io", true));
        ExecutorService calls = Executors.newCachedThreadPool(daemonThreads("ortex-grpc-call-"));
        Server server = NettyServerBuilder.forAddress(new InetSocketAddress(host, port))
                .channelType(NioServerSocketChannel.class)
                .bossEventLoopGroup(boss)
                .workerEventLoopGroup(workers)
                .executor(calls)
                .maxInboundMessageSize(maxMessageBytes)
                .addService(service)
                .build();
        GrpcServer running = new GrpcServer(server, boss, workers, calls);
        try {
            server.start();
        } catch (IOException | RuntimeException e) {
            running.close();
            throw e;
        }
        return running;
    }

    private static ThreadFactory daemonThreads(String prefix) {
        AtomicInteger n = new AtomicInteger();
        return r -> {
            Thread t = new Thread(r, prefix + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        };
    }

    /**
     * Gets the port the server listens on (the one chosen when started with 0).
     *
     * @return the port
     */
    public int port() {
        return server.getPort();
    }

    /** Stops listening, lets running calls finish for a few seconds, then cancels the rest and ends the threads. */
    @Override
    public void close() {
        server.shutdown();
        try {
            if (!server.awaitTermination(GRACE_SECONDS, TimeUnit.SECONDS)) {
                server.shutdownNow();
                server.awaitTermination(GRACE_SECONDS, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            server.shutdownNow();
            Thread.currentThread().interrupt();
        } finally {
            calls.shutdownNow();
            boss.shutdownGracefully(0, GRACE_SECONDS, TimeUnit.SECONDS);
            workers.shutdownGracefully(0, GRACE_SECONDS, TimeUnit.SECONDS);
        }
    }
}
