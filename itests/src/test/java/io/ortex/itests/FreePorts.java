package io.ortex.itests;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/** Free TCP ports for the integration tests' servers. */
public final class FreePorts {
    /** The ports {@link #next} has handed out in this JVM. */
    private static final Set<Integer> HANDED_OUT = ConcurrentHashMap.newKeySet();

    private FreePorts() {
    }

    /**
     * Finds a free TCP port, never one it found before in this JVM: the system may offer a port again as soon as the
     * probe closes it, and a server's REST and gRPC ports, picked one after the other, must differ.
     *
     * @return the port
     */
    public static int next() {
        for (int attempt = 0; attempt < 100; attempt++) {
            try (ServerSocket s = new ServerSocket(0)) {
                if (HANDED_OUT.add(s.getLocalPort())) {
                    return s.getLocalPort();
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        throw new IllegalStateException("no new free port in 100 tries");
    }
}
