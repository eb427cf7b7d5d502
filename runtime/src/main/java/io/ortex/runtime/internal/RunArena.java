package io.ortex.runtime.internal;

import io.ortex.api.ElementType;
import io.ortex.api.RunMemory;
import io.ortex.api.Tensor;
import java.lang.reflect.Array;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The memory of one run: the arrays that kernels get for their outputs and scratch through
 * {@link io.ortex.api.spi.KernelContext#allocate}, recycled as the plan frees the values that hold them.
 *
 * <p>Each array handed out is counted by the value slots that hold it (a Reshape or Identity output shares its
 * input's array, so several slots may). When the count falls to zero the array goes back to a free list keyed by
 * its storage class and length, and the next allocation of that exact size takes it. Arrays taken during a step
 * that no slot holds after it (scratch) are recycled when the step ends. Graph outputs are handed to the caller and
 * forgotten; so are the outputs of a nested subgraph, which its control-flow kernel may keep. At the end of a run,
 * free arrays that the run did not use are dropped, so an arena holds at most what one run needs.
 *
 * <p>A run may write graph outputs into arrays the caller pinned ({@link #pin}): while a step that produces such an
 * output runs, the arena hands out the pinned array for the first allocation of the output's type and shape
 * ({@link #offer}). A pinned array is the caller's: it never joins a free list, whatever the step did with it.
 *
 * <p>Tensors outside the Java heap (in an EP's own memory) are not the arena's: the plan closes them.
 *
 * <p>An arena serves one run at a time (the session keeps a pool of them for concurrent runs). Allocation may come
 * from any intra-op thread of that run; the slot bookkeeping comes from the thread that runs the steps.
 */
final class RunArena {
    /** Smaller arrays are not worth recycling: allocating them is as cheap as finding them. */
    static final int MIN_RECYCLED_BYTES = 256;

    private final Map<Long, ArrayDeque<Object>> free = new HashMap<>();
    /** Arrays handed out and not yet free: how many value slots hold each. */
    private final IdentityHashMap<Object, int[]> owned = new IdentityHashMap<>();
    /** Arrays taken since the innermost open step began, above the marks of the outer steps. */
    private final List<Object> taken = new ArrayList<>();
    private final ArrayDeque<Integer> stepMarks = new ArrayDeque<>();
    /** Free lists used during the current run; the others are dropped at its end. */
    private final Set<Long> usedKeys = new HashSet<>();
    /** The caller's arrays that the current run writes outputs into. */
    private final Set<Object> pinned = Collections.newSetFromMap(new IdentityHashMap<>());
    /** The pinned outputs of the step running now, not yet handed out. */
    private final List<Tensor> offered = new ArrayList<>();
    /**
     * Whether a step is being offered pinned arrays: read without the lock, so that a small allocation outside such a
     * step skips it, as it did before pinning existed.
     */
    private volatile boolean offering;
    private long recycledBytes;

    /**
     * Gets a tensor whose array the arena owns.
     *
     * @param type the element type (strings are not recycled)
     * @param shape the dimensions
     * @param zero whether the elements must be zero; otherwise they are unspecified
     * @return the tensor
     */
    Tensor allocate(ElementType type, long[] shape, boolean zero) {
        if (type == ElementType.STRING) {
            return Tensor.zeros(type, shape);
        }
        int count = Tensor.checkedElementCount(shape);
        Class<?> storage = type.storage();
        int bytes = count * bytesPer(storage);
        if (bytes < MIN_RECYCLED_BYTES && !offering) {
            return Tensor.zeros(type, shape);
        }
        Object array;
        synchronized (this) {
            array = takeOffered(type, shape);
            if (array == null) {
                if (bytes < MIN_RECYCLED_BYTES) {
                    return Tensor.zeros(type, shape);
                }
                long key = key(storage, count);
                usedKeys.add(key);
                array = poll(key);
                if (array == null) {
                    // new memory, unlike a recycled or pinned array: checked against the run's limits first
                    RunMemory.check(type, count);
                    array = Array.newInstance(storage.getComponentType(), count);
                    zero = false;
                } else {
                    recycledBytes += bytes;
                }
            }
            if (zero) {
                fill(array);
            }
            owned.put(array, new int[1]);
            taken.add(array);
        }
        return Tensor.of(type, shape, array);
    }

    private Object poll(long key) {
        ArrayDeque<Object> list = free.get(key);
        return list == null ? null : list.pollLast();
    }

    private Object takeOffered(ElementType type, long[] shape) {
        for (int i = 0; i < offered.size(); i++) {
            Tensor t = offered.get(i);
            if (t.type() == type && Arrays.equals(t.shape(), shape)) {
                offered.remove(i);
                return t.data();
            }
        }
        return null;
    }

    /**
     * Marks a heap array as the caller's for the rest of the run: it may be handed out by {@link #offer}, but is never
     * recycled.
     *
     * @param target the caller's tensor
     */
    synchronized void pin(Tensor target) {
        pinned.add(target.data());
    }

    /**
     * Offers a pinned tensor's array to the allocations of the step about to run, until {@link #withdrawOffers}: the
     * first allocation of its type and shape gets it.
     *
     * @param target a tensor passed to {@link #pin} in this run
     */
    synchronized void offer(Tensor target) {
        offered.add(target);
        offering = true;
    }

    /**
     * Tells whether the step running now is offered a pinned array of a type and shape: a kernel that could write
     * that output into an input's array takes the pinned one instead, which spares the copy into it at the end.
     *
     * @param type the element type
     * @param shape the dimensions
     * @return true when an allocation of that type and shape would get a pinned array
     */
    boolean offers(ElementType type, long[] shape) {
        if (!offering) {
            return false;
        }
        synchronized (this) {
            for (Tensor t : offered) {
                if (t.type() == type && Arrays.equals(t.shape(), shape)) {
                    return true;
                }
            }
            return false;
        }
    }

    /** Ends the offers of the step that ran. */
    synchronized void withdrawOffers() {
        offered.clear();
        offering = false;
    }

    /** Marks the start of a step; arrays taken from now on that no slot holds when it ends are recycled then. */
    synchronized void beginStep() {
        stepMarks.push(taken.size());
    }

    /** Marks the end of the step begun last: recycles its scratch arrays. */
    synchronized void endStep() {
        int mark = stepMarks.pop();
        for (int i = taken.size() - 1; i >= mark; i--) {
            Object a = taken.remove(i);
            int[] holders = owned.get(a);
            if (holders != null && holders[0] == 0) {
                recycle(a);
            }
        }
    }

    /**
     * Counts one more slot holding a value.
     *
     * @param t the value, or {@code null}
     */
    void hold(Tensor t) {
        if (t == null || t.isOffHeap()) {
            return;
        }
        synchronized (this) {
            int[] holders = owned.get(t.data());
            if (holders != null) {
                holders[0]++;
            }
        }
    }

    /**
     * Counts one slot fewer holding a value, recycling its array when none is left.
     *
     * @param t the value, or {@code null}
     */
    void drop(Tensor t) {
        if (t == null || t.isOffHeap()) {
            return;
        }
        synchronized (this) {
            Object a = t.data();
            int[] holders = owned.get(a);
            // an array taken by a step still running (a control-flow kernel's own buffer passed into a subgraph)
            // is that step's to recycle when it ends
            if (holders != null && --holders[0] <= 0 && !isTakenInOpenStep(a)) {
                recycle(a);
            }
        }
    }

    /**
     * Tells whether a value's array is the arena's and held by exactly one value slot, outside any step still running:
     * what an input must be for a kernel to write its output into it.
     *
     * @param t the value
     * @return true when only that value holds the array
     */
    synchronized boolean soleHolder(Tensor t) {
        Object a = t.data();
        int[] holders = owned.get(a);
        return holders != null && holders[0] == 1 && !isTakenInOpenStep(a);
    }

    private boolean isTakenInOpenStep(Object a) {
        for (Object o : taken) {
            if (o == a) {
                return true;
            }
        }
        return false;
    }

    /**
     * Gives up an array for good: it leaves the run (a graph output handed to a caller).
     *
     * @param t the value, or {@code null}
     */
    void release(Tensor t) {
        if (t == null || t.isOffHeap()) {
            return;
        }
        synchronized (this) {
            owned.remove(t.data());
        }
    }

    /** Ends a run: forgets what is still held, and drops free arrays of sizes this run did not use. */
    synchronized void endRun() {
        pinned.clear();
        offered.clear();
        offering = false;
        owned.clear();
        taken.clear();
        stepMarks.clear();
        free.keySet().retainAll(usedKeys);
        usedKeys.clear();
    }

    /**
     * Gets the bytes served from recycled arrays since the arena was made.
     *
     * @return the bytes
     */
    synchronized long recycledBytes() {
        return recycledBytes;
    }

    private void recycle(Object array) {
        owned.remove(array);
        if (pinned.contains(array)) {
            return;
        }
        free.computeIfAbsent(key(array.getClass(), Array.getLength(array)),
                k -> new ArrayDeque<>()).add(array);
    }

    private static long key(Class<?> storage, int length) {
        return ((long) storageIndex(storage) << 32) | length;
    }

    private static int storageIndex(Class<?> storage) {
        if (storage == float[].class) {
            return 0;
        } else if (storage == long[].class) {
            return 1;
        } else if (storage == int[].class) {
            return 2;
        } else if (storage == double[].class) {
            return 3;
        } else if (storage == byte[].class) {
            return 4;
        } else if (storage == short[].class) {
            return 5;
        } else if (storage == boolean[].class) {
            return 6;
        }
        return 7;
    }

    private static int bytesPer(Class<?> storage) {
        if (storage == long[].class || storage == double[].class) {
            return 8;
        } else if (storage == float[].class || storage == int[].class) {
            return 4;
        } else if (storage == short[].class) {
            return 2;
        }
        return 1;
    }

    private static void fill(Object array) {
        if (array instanceof float[] f) {
            Arrays.fill(f, 0f);
        } else if (array instanceof long[] l) {
            Arrays.fill(l, 0L);
        } else if (array instanceof int[] i) {
            Arrays.fill(i, 0);
        } else if (array instanceof double[] d) {
            Arrays.fill(d, 0d);
        } else if (array instanceof byte[] b) {
            Arrays.fill(b, (byte) 0);
        } else if (array instanceof short[] s) {
            Arrays.fill(s, (short) 0);
        } else if (array instanceof boolean[] z) {
            Arrays.fill(z, false);
        }
    }
}
