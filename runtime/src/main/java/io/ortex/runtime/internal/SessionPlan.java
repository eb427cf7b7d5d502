package io.ortex.runtime.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.ReentrantLock;
import java.util.concurrent.locks.ReentrantReadWriteLock;

/**
 * One compiled form of a session: its EPs, one plan per graph, the node assignment, and the lock through which runs
 * use it. A session has one plan at a time; a migration puts a new one in its place and waits, through
 * {@link #retire()}, for the runs still using the old one before releasing the old EPs. Immutable apart from its
 * locks; thread safe.
 */
final class SessionPlan {
    private final SessionCompiler.Result compiled;
    private final GraphPlan main;
    private final ReentrantLock serial;
    private final List<String> epNames;
    private final ReentrantReadWriteLock use = new ReentrantReadWriteLock();

    /**
     * Wraps a compiled session.
     *
     * @param compiled the compiled session
     */
    SessionPlan(SessionCompiler.Result compiled) {
        this.compiled = compiled;
        this.main = compiled.main();
        boolean concurrent = compiled.eps().stream().allMatch(e -> e.ep().isConcurrentRunSupported());
        this.serial = concurrent ? null : new ReentrantLock();
        List<String> names = new ArrayList<>();
        compiled.eps().forEach(e -> names.add(e.ep().name()));
        this.epNames = List.copyOf(names);
    }

    /** The compiled session: EPs, plans by graph, assignment. */
    SessionCompiler.Result compiled() {
        return compiled;
    }

    /** The main graph's plan. */
    GraphPlan main() {
        return main;
    }

    /** The lock that serializes runs when an EP cannot run concurrently, {@code null} when runs may overlap. */
    ReentrantLock serial() {
        return serial;
    }

    /** The EP names in priority order, kept so that they can be read without calling a released EP. */
    List<String> epNames() {
        return epNames;
    }

    /**
     * Marks the start of a call that uses this plan's EPs; blocks only while {@link #retire()} holds the plan.
     * Every call must be paired with {@link #endUse()}.
     */
    void beginUse() {
        use.readLock().lock();
    }

    /** Marks the end of a call that {@link #beginUse()} let in. */
    void endUse() {
        use.readLock().unlock();
    }

    /**
     * Waits until no call uses this plan any more. The caller must already have replaced the plan, so that calls that
     * come later use the new one; the old EPs can be released when this returns.
     */
    void retire() {
        use.writeLock().lock();
        use.writeLock().unlock();
    }
}
