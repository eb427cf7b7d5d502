package io.ortex.benchmarks.serving;

/**
 * What changes on the server while a phase's clients run: nothing, the example EP coming and going, or model
 * versions being replaced. Runs on a thread of its own; every wait is bounded.
 */
interface Disturbance {
    /** No change: the clients alone. */
    Disturbance NONE = new Disturbance() {
        @Override
        public void run(ServerProcess server, ModelFolder model, Recorder recorder, long phaseNanos) {
            // nothing changes
        }

        @Override
        public String describe() {
            return "none";
        }
    };

    /**
     * Makes the changes, spread over the phase's duration, recording each step as an event.
     *
     * @param server the server
     * @param model the model the clients ask
     * @param recorder where events go
     * @param phaseNanos the phase's planned duration
     * @throws Exception when a change fails or the server does not follow it in time
     */
    void run(ServerProcess server, ModelFolder model, Recorder recorder, long phaseNanos) throws Exception;

    /**
     * Says what it does, for the report.
     *
     * @return a short description
     */
    String describe();

    /**
     * Sleeps until a point of the phase.
     *
     * @param recorder the phase's recorder (its origin)
     * @param offsetNanos nanoseconds after the phase began
     * @throws InterruptedException when interrupted
     */
    static void sleepUntil(Recorder recorder, long offsetNanos) throws InterruptedException {
        long left = recorder.origin() + offsetNanos - System.nanoTime();
        if (left > 0) {
            Thread.sleep(left / 1_000_000, (int) (left % 1_000_000));
        }
    }

    /**
     * Counts the lines of the server's log that contain a text.
     *
     * @param server the server
     * @param text the text
     * @return the count
     */
    static int count(ServerProcess server, String text) {
        return (int) server.log().lines().filter(l -> l.contains(text)).count();
    }
}
