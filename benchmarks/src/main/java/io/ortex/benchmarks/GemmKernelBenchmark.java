package io.ortex.benchmarks;

import io.ortex.ep.cpu.linalg.Epilogue;
import io.ortex.ep.cpu.linalg.Gemm;
import io.ortex.ep.cpu.linalg.PackedB;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * The CPU EP's float32 matrix product alone, on one thread, with B packed outside the timed region (as constant
 * weights are at compile time): {@code C = A x B} for square operands. GFLOP/s = 2 n^3 / time.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
public class GemmKernelBenchmark {
    /** The matrix size. */
    @Param({"256", "512", "1024"})
    public int n;

    private float[] a;
    private PackedB b;
    private float[] c;

    /** Packs B and makes A and C. */
    @Setup(Level.Trial)
    public void setUp() {
        a = BenchModels.randomFloats(n * n, 1);
        b = Gemm.packB(BenchModels.randomFloats(n * n, 2), 0, n, 1, n, n);
        c = new float[n * n];
    }

    /**
     * One product.
     *
     * @return C, so that it is not optimized away
     */
    @Benchmark
    public float[] multiply() {
        Gemm.multiply(a, 0, n, 1, n, b, c, 0, n, Epilogue.NONE, null);
        return c;
    }
}
