package io.ortex.runtime.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;

/**
 * Where EP code compiled by {@link PluginJar} reports calls it should never have received: a call after its library
 * was released or after its EP was released. It lives on the test class path, which is the parent of every plugin
 * class loader, and holds only strings so that it keeps no plugin class alive.
 */
public final class PluginCalls {
    private static final ConcurrentLinkedQueue<String> VIOLATIONS = new ConcurrentLinkedQueue<>();
    private static volatile CountDownLatch hang = new CountDownLatch(1);

    private PluginCalls() {
    }

    /**
     * Records a call that broke the runtime's promise to a plugin.
     *
     * @param what the EP name and the call, such as {@code MulEP.vendorId after release}
     */
    public static void violation(String what) {
        VIOLATIONS.add(what);
    }

    /**
     * Blocks a plugin that hangs on purpose until the test lets it go ({@link #releaseHangs()}), ignoring interrupts
     * as a stuck native call would.
     */
    public static void hang() {
        CountDownLatch latch = hang;
        while (true) {
            try {
                latch.await();
                return;
            } catch (InterruptedException e) {
                // a hung call does not notice interrupts
            }
        }
    }

    /** Lets every plugin blocked in {@link #hang()} return, and makes the next ones block again. */
    static void releaseHangs() {
        CountDownLatch latch = hang;
        hang = new CountDownLatch(1);
        latch.countDown();
    }

    /**
     * Gets the violations reported by plugins of one EP name.
     *
     * @param epName the EP name the plugin was compiled with
     * @return the violations, oldest first
     */
    static List<String> violations(String epName) {
        List<String> out = new ArrayList<>();
        for (String v : VIOLATIONS) {
            if (v.startsWith(epName + ".") || v.startsWith(epName + " ")) {
                out.add(v);
            }
        }
        return out;
    }
}
