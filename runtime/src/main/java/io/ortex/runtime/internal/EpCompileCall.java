package io.ortex.runtime.internal;

import io.ortex.api.Names;
import io.ortex.api.OrtexException;
import io.ortex.api.SessionOptions;
import io.ortex.api.spi.ComputeKernel;
import io.ortex.api.spi.ExecutionProvider;
import io.ortex.api.spi.FusedNode;
import io.ortex.api.spi.GraphView;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Calls an EP's {@code compile}: directly, or, when {@value SessionOptions#EP_COMPILE_TIMEOUT_MS} sets a limit, on a
 * thread of its own that is cut off when the limit passes. What the EP throws (other than Ortex's own exceptions,
 * which name their culprit) becomes an {@link EpFailure} naming the EP; so does a call cut off. A call cut off is
 * interrupted and left to return on its thread: the EP instance is released then, by that thread, and not by the
 * failed session creation (an EP must not be released while one of its calls runs).
 */
final class EpCompileCall {
    private static final Logger LOG = LoggerFactory.getLogger("io.ortex.runtime.session");

    private EpCompileCall() {
    }

    /**
     * Reads the compile time limit of a session.
     *
     * @param config the session configuration
     * @return the limit in milliseconds, 0 for none
     * @throws io.ortex.api.InvalidArgumentException when the value is not a whole number of 0 or more
     */
    static long timeoutMillis(Map<String, String> config) {
        String text = config.getOrDefault(SessionOptions.EP_COMPILE_TIMEOUT_MS,
                SessionOptions.EP_COMPILE_TIMEOUT_MS_DEFAULT).trim();
        try {
            long ms = Long.parseLong(text);
            if (ms >= 0) {
                return ms;
            }
        } catch (NumberFormatException e) {
            // refused below
        }
        throw new io.ortex.api.InvalidArgumentException(SessionOptions.EP_COMPILE_TIMEOUT_MS
                + " needs a whole number of milliseconds, 0 or more; got " + Names.quote(text));
    }

    /**
     * Compiles an EP's partitions.
     *
     * @param instance the EP, with the factory that releases it
     * @param views the partitions
     * @param fused their fused nodes
     * @param timeoutMillis the time limit, 0 for none
     * @return what the EP returned
     * @throws EpFailure when the EP threw something other than an {@link OrtexException}, or did not return in time
     * @throws OrtexException what the EP threw, as it was
     */
    static List<ComputeKernel> compile(EpInstance instance, List<GraphView> views, List<FusedNode> fused,
                                       long timeoutMillis) {
        ExecutionProvider ep = instance.ep();
        if (timeoutMillis <= 0) {
            try {
                return ep.compile(views, fused);
            } catch (OrtexException e) {
                throw e;
            } catch (RuntimeException | LinkageError | StackOverflowError e) {
                throw failed(ep, e);
            }
        }
        CompletableFuture<List<ComputeKernel>> call = new CompletableFuture<>();
        Thread t = new Thread(() -> {
            try {
                call.complete(ep.compile(views, fused));
            } catch (Throwable e) {
                call.completeExceptionally(e);
            }
        }, "ortex-compile-" + ep.name());
        t.setDaemon(true);
        t.start();
        try {
            return call.get(timeoutMillis, TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof OrtexException o) {
                throw o;
            }
            if (cause instanceof Error err && !(err instanceof LinkageError || err instanceof StackOverflowError)) {
                throw err;
            }
            throw failed(ep, cause);
        } catch (TimeoutException e) {
            abandon(instance, call, t);
            throw new EpFailure(ep.name(), "EP " + ep.name() + " did not finish compiling " + views.size()
                    + " partition" + (views.size() == 1 ? "" : "s") + " within " + timeoutMillis + " ms ("
                    + SessionOptions.EP_COMPILE_TIMEOUT_MS + "); the call was cut off", null, instance);
        } catch (InterruptedException e) {
            abandon(instance, call, t);
            Thread.currentThread().interrupt();
            throw new EpFailure(ep.name(), "session creation was interrupted while EP " + ep.name()
                    + " compiled", e, instance);
        }
    }

    private static EpFailure failed(ExecutionProvider ep, Throwable e) {
        return new EpFailure(ep.name(), "EP " + ep.name() + " failed to compile its partitions: " + e, e);
    }

    /** Interrupts a call that ran too long and releases its EP (and what it compiled) once the call returns. */
    private static void abandon(EpInstance instance, CompletableFuture<List<ComputeKernel>> call, Thread t) {
        t.interrupt();
        call.whenComplete((kernels, error) -> {
            if (kernels != null) {
                kernels.stream().filter(k -> k != null).forEach(instance.kernels()::add);
            }
            LOG.info("EP {} returned from a compile call that was cut off; releasing it", instance.ep().name());
            SessionCompiler.release(List.of(instance));
        });
    }
}
