package io.ortex.benchmarks;

import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

/**
 * Measures how fast the current core multiplies and adds right now: a fixed number of vector fused multiply-adds in
 * twelve independent chains, from registers only, so that neither memory nor the code under test is in it. On a
 * shared host the figure moves with what else runs on the core (on this project's build host it is about 1.3x slower
 * every few seconds), which tells {@link InterleavedRuns} whether a block ran on a full-speed or a slowed core.
 */
final class HostProbe {
    private static final VectorSpecies<Float> S = FloatVector.SPECIES_PREFERRED;
    private static final int STEPS = 40_000;
    private static final int REPEATS = 5;
    /** A block whose probe took at most this times the fastest probe ran at full speed. */
    private static final double FULL = 1.10;
    /** A block whose probe took at least this times the fastest probe ran slowed. */
    private static final double SLOWED = 1.20;

    /** Keeps the chains' result alive. */
    private static volatile float sink;

    private HostProbe() {
    }

    /**
     * Times the probe a few times.
     *
     * @return the median time in milliseconds
     */
    static double measure() {
        double[] t = new double[REPEATS];
        for (int i = 0; i < REPEATS; i++) {
            long start = System.nanoTime();
            chains();
            t[i] = (System.nanoTime() - start) / 1e6;
        }
        return InterleavedRuns.median(t);
    }

    private static void chains() {
        FloatVector m = FloatVector.broadcast(S, 0.999f);
        FloatVector c = FloatVector.broadcast(S, 0.001f);
        FloatVector a0 = FloatVector.broadcast(S, 0f);
        FloatVector a1 = FloatVector.broadcast(S, 1f);
        FloatVector a2 = FloatVector.broadcast(S, 2f);
        FloatVector a3 = FloatVector.broadcast(S, 3f);
        FloatVector a4 = FloatVector.broadcast(S, 4f);
        FloatVector a5 = FloatVector.broadcast(S, 5f);
        FloatVector a6 = FloatVector.broadcast(S, 6f);
        FloatVector a7 = FloatVector.broadcast(S, 7f);
        FloatVector a8 = FloatVector.broadcast(S, 8f);
        FloatVector a9 = FloatVector.broadcast(S, 9f);
        FloatVector a10 = FloatVector.broadcast(S, 10f);
        FloatVector a11 = FloatVector.broadcast(S, 11f);
        for (int i = 0; i < STEPS; i++) {
            a0 = a0.fma(m, c);
            a1 = a1.fma(m, c);
            a2 = a2.fma(m, c);
            a3 = a3.fma(m, c);
            a4 = a4.fma(m, c);
            a5 = a5.fma(m, c);
            a6 = a6.fma(m, c);
            a7 = a7.fma(m, c);
            a8 = a8.fma(m, c);
            a9 = a9.fma(m, c);
            a10 = a10.fma(m, c);
            a11 = a11.fma(m, c);
        }
        sink = a0.add(a1).add(a2).add(a3).add(a4).add(a5).add(a6).add(a7).add(a8).add(a9).add(a10).add(a11)
                .reduceLanes(VectorOperators.ADD);
    }

    /** The host's state in each block of a run, judged against the fastest probe of the run. */
    static final class Phases {
        private final double[][] probes;
        private final double fastest;

        private Phases(double[][] probes, double fastest) {
            this.probes = probes;
            this.fastest = fastest;
        }

        /**
         * Judges a run's probes.
         *
         * @param probes the probe of each side's block, by side and round
         * @return the judgement
         */
        static Phases of(double[][] probes) {
            double min = Double.POSITIVE_INFINITY;
            for (double[] side : probes) {
                for (double p : side) {
                    min = Math.min(min, p);
                }
            }
            return new Phases(probes, min);
        }

        boolean full(int side, int round) {
            return probes[side][round] <= FULL * fastest;
        }

        boolean slowed(int side, int round) {
            return probes[side][round] >= SLOWED * fastest;
        }
    }
}
