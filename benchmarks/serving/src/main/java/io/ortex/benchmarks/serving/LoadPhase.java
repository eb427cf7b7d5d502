package io.ortex.benchmarks.serving;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * One phase of the load test: {@code clients} closed-loop clients (each sends its next request when its last one was
 * answered) ask one model over one protocol for {@code seconds}, while a {@link Disturbance} changes the server. When
 * the disturbance has not finished by then, the clients go on until it has (so that every change happens under
 * load), at most {@link #OVERRUN_LIMIT_NANOS} longer. Every answer is checked against the direct session run; a wrong
 * answer is a failure. Each client stops after {@link #MAX_REQUESTS} requests at the latest.
 */
final class LoadPhase {
    /** The most requests one client sends in one phase. */
    static final int MAX_REQUESTS = 10_000_000;
    /** How much longer than planned a phase may run while its disturbance finishes. */
    static final long OVERRUN_LIMIT_NANOS = TimeUnit.SECONDS.toNanos(300);

    private final String title;
    private final InferClient client;
    private final ModelFolder model;
    private final boolean batched;
    private final Disturbance disturbance;

    /**
     * Describes a phase.
     *
     * @param title the phase's title in the report
     * @param client the protocol's client
     * @param model the model asked
     * @param batched whether the model batches requests
     * @param disturbance what changes meanwhile
     */
    LoadPhase(String title, InferClient client, ModelFolder model, boolean batched, Disturbance disturbance) {
        this.title = title;
        this.client = client;
        this.model = model;
        this.batched = batched;
        this.disturbance = disturbance;
    }

    /**
     * Runs the phase.
     *
     * @param server the server
     * @param expected the outputs to compare with
     * @param clients how many clients
     * @param seconds the planned duration
     * @return what was measured
     * @throws InterruptedException when interrupted
     */
    PhaseResult run(ServerProcess server, ExpectedOutputs expected, int clients, double seconds)
            throws InterruptedException {
        long planned = (long) (seconds * 1e9);
        Recorder recorder = new Recorder();
        AtomicReference<Throwable> disturbanceFailure = new AtomicReference<>();
        Thread changer = new Thread(() -> {
            try {
                disturbance.run(server, model, recorder, planned);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (Exception e) {
                disturbanceFailure.set(e);
                recorder.event("the disturbance failed: " + e.getMessage());
            }
        }, "load-disturbance");
        changer.setDaemon(true);
        changer.start();
        long plannedEnd = recorder.origin() + planned;
        long hardEnd = plannedEnd + OVERRUN_LIMIT_NANOS;
        List<Thread> threads = new ArrayList<>();
        for (int c = 0; c < clients; c++) {
            int id = c;
            Thread t = new Thread(() -> loop(id, expected, recorder, changer, plannedEnd, hardEnd), "load-client-" + c);
            t.setDaemon(true);
            threads.add(t);
        }
        threads.forEach(Thread::start);
        for (Thread t : threads) {
            t.join(TimeUnit.NANOSECONDS.toMillis(hardEnd - System.nanoTime()) + 120_000);
        }
        long end = System.nanoTime();
        changer.join(TimeUnit.SECONDS.toMillis(30));
        return new PhaseResult(title, client.protocol(), batched, disturbance.describe(), clients, seconds,
                (end - recorder.origin()) / 1e9, recorder, disturbanceFailure.get());
    }

    private void loop(int id, ExpectedOutputs expected, Recorder recorder, Thread changer, long plannedEnd,
            long hardEnd) {
        int row = id % Math.max(1, expected.rows());
        for (int n = 0; n < MAX_REQUESTS; n++) {
            long now = System.nanoTime();
            if (now >= hardEnd || now >= plannedEnd && !changer.isAlive()) {
                return;
            }
            long start = System.nanoTime();
            try {
                float[] got = client.infer(model.name(), row);
                long latency = System.nanoTime() - start;
                String wrong = expected.check(row, got);
                if (wrong == null) {
                    recorder.answered(start, latency);
                } else {
                    recorder.failed(start, id, "wrong answer: " + wrong);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                recorder.failed(start, id, "interrupted");
                return;
            } catch (Exception e) {
                recorder.failed(start, id, e.getClass().getSimpleName() + ": " + e.getMessage());
                try {
                    Thread.sleep(10);  // a server that refuses everything is not hammered in a tight loop
                } catch (InterruptedException stop) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
            row = (row + 1) % expected.rows();
        }
    }
}
