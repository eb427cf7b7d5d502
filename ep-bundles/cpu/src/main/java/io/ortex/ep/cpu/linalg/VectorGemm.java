package io.ortex.ep.cpu.linalg;

import io.ortex.api.spi.KernelContext;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorSpecies;
import org.slf4j.LoggerFactory;

/**
 * The Vector API matrix product. B is packed in panels of {@link #NR} columns (two vectors of the preferred species),
 * each panel stored row after row; A is packed per block of at most {@link #MC_MAX} rows by {@link #KC} steps of the
 * reduction into tiles of {@link #MR} rows interleaved by step. A micro-kernel keeps an {@code MR x NR} tile of C in
 * vector registers over a block of the reduction, scaling and storing it in the same method so that nothing is boxed:
 * with 256-bit vectors 4 rows x 2 vectors (8 accumulators, 2 B vectors and the broadcast A values: 14 of AVX2's 16
 * registers), with 512-bit vectors 8 rows x 2 vectors (16 accumulators of AVX-512's 32 registers). The B panel
 * block ({@code KC x NR}) stays in L1 while every tile of the A block passes over it, the A block in L2 while every
 * panel passes; the panels are taken a strip of C at a time over every block of the reduction, so that C too stays in
 * L2 while it is added to and while the bias and activation run along its rows ({@link #finish}). A product on one
 * thread with only one or two panels reads A in place instead ({@link #direct}).
 * Loaded only when {@link VectorSupport#enabled()}. Stateless apart from per-thread scratch.
 */
final class VectorGemm {
    private static final VectorSpecies<Float> S = FloatVector.SPECIES_PREFERRED;
    private static final int L = S.length();
    /** Columns of a panel: two vectors. */
    static final int NR = 2 * L;
    /**
     * The system property that sets the rows of a micro-tile, 4 or 8, instead of the default: 8 with vectors of 512
     * bits or more (AVX-512 has 32 vector registers, room for 16 accumulators) on JDK 25 and later, else 4 (AVX2's 16
     * registers hold 8 accumulators, 16 would spill; and JDK 17's C2, depending on what it compiled before, sometimes
     * leaves the 8-row kernel's vectors boxed, gigabytes of garbage per model run). The tests use it to run both
     * kernels on any machine.
     */
    static final String ROWS_PROPERTY = "ortex.cpu.gemm.rows";
    /** Rows of a micro-tile: 4 or 8. */
    static final int MR = tileRows();
    /** Rows {@link #direct} reads in place at a time. */
    private static final int DIRECT_ROWS = 4;
    /** Steps of the reduction per block. */
    static final int KC = 256;
    /**
     * The most rows of A packed at once: 128 rows by {@link #KC} steps (128 KB) stay in a 512 KB L2 cache, and a
     * product of 128 rows (a transformer's 128 tokens) on one thread then reads each panel of B once instead of
     * once per block of rows.
     */
    static final int MC_MAX = 128;
    /** Below this many multiply-adds a product runs on the calling thread. */
    private static final long PARALLEL_WORK = 1L << 16;
    /** The most panels of B a product on one thread may have to read A in place instead of packing it. */
    private static final int DIRECT_PANELS = 2;
    /** The largest B (in floats, 128 KB) a product may have to read A in place: it must stay in the L2 cache. */
    private static final int DIRECT_B_FLOATS = 32 * 1024;
    /** How many units of work a product is cut into per thread, when it runs on several. */
    private static final int UNITS_PER_THREAD = 4;

    private static final ThreadLocal<float[]> A_BLOCK = ThreadLocal.withInitial(() -> new float[MC_MAX * KC]);
    /** A partial tile on its way into C; only the 4-row kernels store partial tiles. */
    private static final ThreadLocal<float[]> EDGE = ThreadLocal.withInitial(() -> new float[4 * NR]);

    private VectorGemm() {
    }

    private static int tileRows() {
        String set = System.getProperty(ROWS_PROPERTY, "").trim();
        int byWidth = S.vectorBitSize() >= 512 && Runtime.version().feature() >= 25 ? 8 : 4;
        if (set.isEmpty()) {
            return byWidth;
        }
        if (!set.equals("4") && !set.equals("8")) {
            LoggerFactory.getLogger("io.ortex.ep.cpu").warn("-D{}={} ignored: it must be 4 or 8; using {}",
                    ROWS_PROPERTY, set, byWidth);
            return byWidth;
        }
        return Integer.parseInt(set);
    }

    /** Describes the vectors in use; touching this method loads the Vector API. */
    static String describe() {
        return S.vectorBitSize() + "-bit float vectors, " + MR + "x" + NR + " micro-kernel";
    }

    static float[] packB(float[] src, int offset, int rowStride, int colStride, int k, int n) {
        float[] out = new float[Math.multiplyExact(Math.multiplyExact((n + NR - 1) / NR, k), NR)];
        packInto(src, offset, rowStride, colStride, k, n, out);
        return out;
    }

    /** Packs B into {@code out} (at least {@code panels * k * NR} long), zero-padding the last panel. */
    private static void packInto(float[] src, int offset, int rowStride, int colStride, int k, int n, float[] out) {
        int panels = (n + NR - 1) / NR;
        if (rowStride == 1 && colStride != 1) {
            packColumns(src, offset, colStride, k, n, out);
            return;
        }
        for (int p = 0; p < panels; p++) {
            int c0 = p * NR;
            int w = Math.min(NR, n - c0);
            for (int r = 0; r < k; r++) {
                int from = offset + r * rowStride + c0 * colStride;
                int to = (p * k + r) * NR;
                if (colStride == 1) {
                    System.arraycopy(src, from, out, to, w);
                } else {
                    for (int j = 0; j < w; j++) {
                        out[to + j] = src[from + j * colStride];
                    }
                }
                for (int j = w; j < NR; j++) {
                    out[to + j] = 0f;
                }
            }
        }
    }

    /**
     * {@link #packInto} for a B whose columns are adjacent in memory (a transposed matrix, such as attention's keys):
     * each column is read in one run and spread down its panel, instead of reading across the columns, a cache line
     * apart, for every row.
     */
    private static void packColumns(float[] src, int offset, int colStride, int k, int n, float[] out) {
        int panels = (n + NR - 1) / NR;
        for (int p = 0; p < panels; p++) {
            int c0 = p * NR;
            int w = Math.min(NR, n - c0);
            int base = p * k * NR;
            for (int j = 0; j < w; j++) {
                int from = offset + (c0 + j) * colStride;
                for (int r = 0; r < k; r++) {
                    out[base + r * NR + j] = src[from + r];
                }
            }
            for (int r = 0; r < k && w < NR; r++) {
                java.util.Arrays.fill(out, base + r * NR + w, base + (r + 1) * NR, 0f);
            }
        }
    }

    /** Operands larger than this many floats are packed into a new array instead of the per-thread scratch. */
    private static final int MAX_SCRATCH_FLOATS = 1 << 22;
    private static final ThreadLocal<float[][]> B_SCRATCH = ThreadLocal.withInitial(() -> new float[1][0]);
    /** A block of rows of A packed whole (every block of the reduction), for one thread's own units. */
    private static final ThreadLocal<float[][]> A_ROWS = ThreadLocal.withInitial(() -> new float[1][0]);
    /** The most floats (4 MB) {@link #A_ROWS} grows to; a longer reduction packs A block by block instead. */
    private static final int A_ROWS_FLOATS = 1 << 20;
    /**
     * The most of C (in floats, 192 KB) a sweep over the blocks of the reduction writes before moving on: with a block
     * of packed A (128 KB) it stays in a 512 KB L2 cache.
     */
    private static final int C_STRIP_FLOATS = 48 * 1024;
    /** A packed whole, when several units share each block of rows; read by every thread of the product. */
    private static final ThreadLocal<float[][]> A_SHARED = ThreadLocal.withInitial(() -> new float[1][0]);

    /** The calling thread's array of {@code holder}, grown to at least {@code size} floats when it is shorter. */
    private static float[] scratch(ThreadLocal<float[][]> holder, int size) {
        float[][] h = holder.get();
        if (h[0].length < size) {
            h[0] = new float[size];
        }
        return h[0];
    }

    static void multiplyUnpacked(float[] a, int aOff, int ars, int acs, int m, float[] b, int bOff, int brs, int bcs,
                                 int k, int n, float[] c, int cOff, int ldc, Epilogue ep, KernelContext ctx) {
        int size = Math.multiplyExact(Math.multiplyExact((n + NR - 1) / NR, k), NR);
        float[] packed;
        if (size <= MAX_SCRATCH_FLOATS) {
            packed = scratch(B_SCRATCH, size);
            packInto(b, bOff, brs, bcs, k, n, packed);
        } else {
            packed = packB(b, bOff, brs, bcs, k, n);
        }
        multiply(a, aOff, ars, acs, m, new PackedB(k, n, packed, null), c, cOff, ldc, ep, ctx);
    }

    static void multiply(float[] a, int aOff, int ars, int acs, int m, PackedB b, float[] c, int cOff, int ldc,
                         Epilogue ep, KernelContext ctx) {
        int k = b.rowCount();
        int n = b.columnCount();
        if (k == 0) {
            ScalarGemm.epilogueOnly(m, n, c, cOff, ldc, ep);
            return;
        }
        int threads = ctx == null ? 1 : Math.max(1, ctx.intraOpThreads());
        if ((long) m * n * k < PARALLEL_WORK) {
            threads = 1;
        }
        int panels = (n + NR - 1) / NR;
        if (threads == 1 && acs == 1 && panels <= DIRECT_PANELS && (long) k * panels * NR <= DIRECT_B_FLOATS) {
            direct(a, aOff, ars, m, k, n, b.panels(), c, cOff, ldc, ep);
            return;
        }
        int blocks = (m + MC_MAX - 1) / MC_MAX;
        if (!splitsColumns(m, n, threads)) {
            // at least a block of rows per thread
            blocks = Math.min((m + MR - 1) / MR, (blocks + threads - 1) / threads * threads);
        }
        int mc = ((m + blocks - 1) / blocks + MR - 1) / MR * MR;
        int rowBlocks = (m + mc - 1) / mc;
        // a few units per thread, so that a thread that runs slower takes fewer of them
        int wanted = threads == 1 ? 1 : threads * UNITS_PER_THREAD;
        int groups = rowBlocks >= wanted ? 1 : Math.min(panels, (wanted + rowBlocks - 1) / rowBlocks);
        int units = rowBlocks * groups;
        int g = groups;
        if (threads == 1 || units == 1) {
            for (int u = 0; u < units; u++) {
                unit(a, aOff, ars, acs, m, k, n, b.panels(), c, cOff, ldc, ep, mc, u / g, u % g, g, panels);
            }
            return;
        }
        if (g == 1 || (long) rowBlocks * mc * k > MAX_SCRATCH_FLOATS) {
            ctx.parallelFor(units, 1, (from, to) -> {
                for (int u = from; u < to; u++) {
                    unit(a, aOff, ars, acs, m, k, n, b.panels(), c, cOff, ldc, ep, mc, u / g, u % g, g, panels);
                }
            });
            return;
        }
        // several groups of panels share each block of rows: pack A once, then every unit reads it
        int kBlocks = (k + KC - 1) / KC;
        float[] ap = scratch(A_SHARED, rowBlocks * mc * k);
        ctx.parallelFor(rowBlocks * kBlocks, 1, (from, to) -> {
            for (int i = from; i < to; i++) {
                int rb = i / kBlocks;
                int k0 = i % kBlocks * KC;
                int i0 = rb * mc;
                packA(a, aOff, ars, acs, i0, Math.min(mc, m - i0), k0, Math.min(KC, k - k0), ap,
                        rb * mc * k + k0 * mc);
            }
        });
        ctx.parallelFor(units, 1, (from, to) -> {
            for (int u = from; u < to; u++) {
                packedUnit(ap, m, k, n, b.panels(), c, cOff, ldc, ep, mc, u / g, u % g, g, panels);
            }
        });
    }

    /**
     * Whether a product on several threads splits only the columns of C between them, keeping A whole, rather than
     * its rows. A thread then reads all of A (packed once, and shared) and its part of B, instead of its part of A and
     * all of B: less when A fits one block of rows and C has more columns than rows, as in a transformer's layers
     * (128 tokens times weights of 384 or 1536 columns, which come from memory on every run). A taller A is split by
     * rows, whose blocks would each read a thread's part of B again.
     */
    static boolean splitsColumns(int m, int n, int threads) {
        return threads > 1 && m <= MC_MAX && n > m;
    }

    /**
     * {@code C = epilogue(A x B)} on the calling thread with A read in place, four rows at a time, for a product with
     * so few panels of B that packing A would not pay for itself: packing copies each element of A once, one at a
     * time, and with a panel or two each element then takes part in only one or two vector multiply-adds (attention's
     * probabilities times V, whose B is 32 columns wide). A's columns must be adjacent; B is small enough to stay in
     * the L2 cache while the tiles of A pass.
     */
    private static void direct(float[] a, int aOff, int ars, int m, int k, int n, float[] bp, float[] c, int cOff,
                               int ldc, Epilogue ep) {
        int panels = (n + NR - 1) / NR;
        boolean finish = needsFinish(ep);
        for (int row0 = 0; row0 < m; row0 += DIRECT_ROWS) {
            int rows = Math.min(DIRECT_ROWS, m - row0);
            for (int p = 0; p < panels; p++) {
                int col0 = p * NR;
                int cols = Math.min(NR, n - col0);
                int ci = cOff + row0 * ldc + col0;
                rowKernel(a, aOff + row0 * ars, ars, rows, bp, p * k * NR, k, c, ci, ldc, cols, ep.accumulate(),
                        ep.alpha());
                if (finish) {
                    finish(c, ci, ldc, rows, cols, ep, row0, col0);
                }
            }
        }
    }

    /** One block of rows, packed in {@code ap} by {@link #multiply}, times one group of panels. */
    private static void packedUnit(float[] ap, int m, int k, int n, float[] bp, float[] c, int cOff, int ldc,
                                   Epilogue ep, int mc, int rowBlock, int group, int groups, int panels) {
        int i0 = rowBlock * mc;
        int rows = Math.min(mc, m - i0);
        int p0 = (int) ((long) panels * group / groups);
        int p1 = (int) ((long) panels * (group + 1) / groups);
        sweep(ap, rowBlock * mc * k, mc, i0, rows, m, k, n, bp, c, cOff, ldc, ep, p0, p1);
    }

    /**
     * Rows {@code [i0, i0 + rows)} of A, packed whole from {@code aBase} (block {@code k0} of the reduction at
     * {@code aBase + k0 * mc}), times panels {@code [p0, p1)} of B. The panels are taken a few at a time, every block
     * of the reduction for each few, so that the strip of C they write stays in the L2 cache while each block adds to
     * it and while the epilogue's activation then runs along its rows.
     */
    private static void sweep(float[] ap, int aBase, int mc, int i0, int rows, int m, int k, int n, float[] bp,
                              float[] c, int cOff, int ldc, Epilogue ep, int p0, int p1) {
        int step = Math.max(1, C_STRIP_FLOATS / (rows * NR));
        boolean finish = needsFinish(ep);
        for (int q0 = p0; q0 < p1; q0 += step) {
            int q1 = Math.min(p1, q0 + step);
            for (int k0 = 0; k0 < k; k0 += KC) {
                block(ap, aBase + k0 * mc, i0, rows, m, k, n, bp, c, cOff, ldc, ep, k0, q0, q1);
            }
            if (finish) {
                finishPanels(c, cOff, ldc, i0, rows, n, ep, q0, q1);
            }
        }
    }

    /**
     * Packs a constant left operand ({@code m x k}) for {@link #multiplyPacked}: per block of {@link #KC} steps of
     * the reduction (block {@code k0} starting at {@code k0 * mPad}), tiles of {@link #MR} rows interleaved by step,
     * the last tile padded with zero rows.
     */
    static float[] packA(float[] src, int offset, int rowStride, int colStride, int m, int k) {
        int tiles = (m + MR - 1) / MR;
        int mPad = tiles * MR;
        float[] out = new float[Math.multiplyExact(mPad, k)];
        for (int k0 = 0; k0 < k; k0 += KC) {
            int kc = Math.min(KC, k - k0);
            for (int t = 0; t < tiles; t++) {
                int dst = k0 * mPad + t * kc * MR;
                for (int r = 0; r < MR; r++) {
                    int row = t * MR + r;
                    if (row >= m) {
                        continue;
                    }
                    int s = offset + row * rowStride + k0 * colStride;
                    for (int kk = 0; kk < kc; kk++) {
                        out[dst + kk * MR + r] = src[s + kk * colStride];
                    }
                }
            }
        }
        return out;
    }

    /** Bounds a packed block of B ({@code kc x nc}) so that it stays in the L2 cache while the tiles of A pass. */
    private static final int B_BLOCK_FLOATS = 48 * 1024;
    /** The widest packed block of B. */
    private static final int NC_MAX = 2048;
    private static final ThreadLocal<float[]> B_BLOCK = ThreadLocal.withInitial(() -> new float[B_BLOCK_FLOATS]);

    /**
     * {@code C = epilogue(A x B[:, col0 .. col0 + n))} on the calling thread, A packed by {@link #packA}, B packed
     * block by block ({@code kc} steps by up to {@code nc} columns, in panels of {@link #NR}) into per-thread scratch
     * that stays in L2. Each tile of A then passes over every panel of the block while it sits in L1, so C is written
     * a few rows at a time along the block and B is read from memory in long runs per row.
     */
    static void multiplyPacked(PackedA a, PanelSource b, int col0, int n, float[] c, int cOff, int ldc,
                               Epilogue ep) {
        int m = a.rowCount();
        int k = a.columnCount();
        if (k == 0) {
            ScalarGemm.epilogueOnly(m, n, c, cOff, ldc, ep);
            return;
        }
        float[] ap = a.tiles();
        boolean add = ep.accumulate();
        float alpha = ep.alpha();
        boolean finish = needsFinish(ep);
        int tiles = (m + MR - 1) / MR;
        int mPad = tiles * MR;
        float[] bp = B_BLOCK.get();
        int kcMax = Math.min(KC, k);
        int nc = Math.max(NR, Math.min(NC_MAX, B_BLOCK_FLOATS / kcMax / NR * NR));
        for (int j0 = 0; j0 < n; j0 += nc) {
            int cols = Math.min(nc, n - j0);
            int panels = (cols + NR - 1) / NR;
            for (int k0 = 0; k0 < k; k0 += KC) {
                int kc = Math.min(KC, k - k0);
                packBlock(b, k0, kc, col0 + j0, cols, bp);
                boolean last = k0 + kc >= k;
                int aBlock = k0 * mPad;
                for (int t = 0; t < tiles; t++) {
                    int row0 = t * MR;
                    int rows = Math.min(MR, m - row0);
                    for (int p = 0; p < panels; p++) {
                        int pc = j0 + p * NR;
                        int ci = cOff + row0 * ldc + pc;
                        int w = Math.min(NR, n - pc);
                        kernel(ap, aBlock + t * kc * MR, bp, p * kc * NR, kc, c, ci, ldc, rows, w, add || k0 > 0,
                                alpha);
                    }
                    if (finish && last) {
                        // the tile's rows across the block, just stored
                        finish(c, cOff + row0 * ldc + j0, ldc, rows, cols, ep, row0, j0);
                    }
                }
            }
        }
    }

    /**
     * Packs rows {@code [k0, k0 + kc)} by columns {@code [col, col + cols)} of B as panels of {@link #NR} columns
     * (panel {@code p} at {@code p * kc * NR}), the last one zero-padded. Sources that are rows of one array are copied
     * row by row with vectors, reading each row in one run.
     */
    private static void packBlock(PanelSource b, int k0, int kc, int col, int cols, float[] bp) {
        int full = cols / NR;
        float[] src = null;
        int ld = 0;
        int base = 0;
        int[] starts = null;
        if (b instanceof MatrixPanels mp) {
            src = mp.b();
            ld = mp.rowStride();
            base = mp.offset() + k0 * ld + col;
        } else if (b instanceof RowPanels rp) {
            src = rp.b();
            starts = rp.rowStarts();
            base = rp.offset() + col;
        }
        if (src == null) {
            full = 0;
        } else {
            int stride = kc * NR;
            int tail = cols - full * NR;
            for (int r = 0; r < kc; r++) {
                int s = starts == null ? base + r * ld : base + starts[k0 + r];
                int d = r * NR;
                for (int p = 0; p < full; p++, s += NR, d += stride) {
                    FloatVector.fromArray(S, src, s).intoArray(bp, d);
                    FloatVector.fromArray(S, src, s + L).intoArray(bp, d + L);
                }
                if (tail > 0) {
                    // the last, partial panel: a few values, then zeros
                    for (int j = 0; j < tail; j++) {
                        bp[d + j] = src[s + j];
                    }
                    for (int j = tail; j < NR; j++) {
                        bp[d + j] = 0f;
                    }
                }
            }
            return;
        }
        for (int p = full; p * NR < cols; p++) {
            int w = Math.min(NR, cols - p * NR);
            int off = p * kc * NR;
            b.copy(k0, kc, col + p * NR, w, bp, off, NR);
            if (w < NR) {
                for (int r = 0; r < kc; r++) {
                    java.util.Arrays.fill(bp, off + r * NR + w, off + (r + 1) * NR, 0f);
                }
            }
        }
    }

    /** One block of rows times one group of panels, over the whole reduction, packing the rows as it goes. */
    private static void unit(float[] a, int aOff, int ars, int acs, int m, int k, int n, float[] bp, float[] c,
                             int cOff, int ldc, Epilogue ep, int mc, int rowBlock, int group, int groups,
                             int panels) {
        int i0 = rowBlock * mc;
        int rows = Math.min(mc, m - i0);
        int p0 = (int) ((long) panels * group / groups);
        int p1 = (int) ((long) panels * (group + 1) / groups);
        if ((long) mc * k <= A_ROWS_FLOATS) {
            // pack the rows whole, then sweep the panels a strip of C at a time
            float[] ap = scratch(A_ROWS, mc * k);
            for (int k0 = 0; k0 < k; k0 += KC) {
                packA(a, aOff, ars, acs, i0, rows, k0, Math.min(KC, k - k0), ap, k0 * mc);
            }
            sweep(ap, 0, mc, i0, rows, m, k, n, bp, c, cOff, ldc, ep, p0, p1);
            return;
        }
        float[] ap = A_BLOCK.get();
        for (int k0 = 0; k0 < k; k0 += KC) {
            packA(a, aOff, ars, acs, i0, rows, k0, Math.min(KC, k - k0), ap, 0);
            block(ap, 0, i0, rows, m, k, n, bp, c, cOff, ldc, ep, k0, p0, p1);
        }
        if (needsFinish(ep)) {
            finishPanels(c, cOff, ldc, i0, rows, n, ep, p0, p1);
        }
    }

    /**
     * Rows {@code [i0, i0 + rows)} of A, packed at {@code aBase}, times panels {@code [p0, p1)} of B over one block of
     * the reduction from step {@code k0}; the caller finishes the epilogue ({@link #finish}) once the last block is
     * stored.
     */
    private static void block(float[] ap, int aBase, int i0, int rows, int m, int k, int n, float[] bp, float[] c,
                              int cOff, int ldc, Epilogue ep, int k0, int p0, int p1) {
        int kc = Math.min(KC, k - k0);
        int tiles = (rows + MR - 1) / MR;
        boolean add = ep.accumulate() || k0 > 0;
        for (int p = p0; p < p1; p++) {
            int col0 = p * NR;
            int cols = Math.min(NR, n - col0);
            int bBase = (p * k + k0) * NR;
            for (int t = 0; t < tiles; t++) {
                int row0 = i0 + t * MR;
                int ci = cOff + row0 * ldc + col0;
                int tileRows = Math.min(MR, m - row0);
                kernel(ap, aBase + t * kc * MR, bp, bBase, kc, c, ci, ldc, tileRows, cols, add, ep.alpha());
            }
        }
    }

    /** Packs rows {@code [i0, i0 + rows)} by steps {@code [k0, k0 + kc)} of A into tiles of MR rows from {@code at}. */
    private static void packA(float[] a, int aOff, int ars, int acs, int i0, int rows, int k0, int kc, float[] ap,
                              int at) {
        int tiles = (rows + MR - 1) / MR;
        for (int t = 0; t < tiles; t++) {
            int dst = at + t * kc * MR;
            int r0 = t * MR;
            if (r0 + MR <= rows) {
                // four rows at a time (MR is 4 or 8)
                for (int g = 0; g < MR; g += 4) {
                    int s0 = aOff + (i0 + r0 + g) * ars + k0 * acs;
                    int s1 = s0 + ars;
                    int s2 = s1 + ars;
                    int s3 = s2 + ars;
                    for (int kk = 0; kk < kc; kk++) {
                        int d = dst + kk * MR + g;
                        int o = kk * acs;
                        ap[d] = a[s0 + o];
                        ap[d + 1] = a[s1 + o];
                        ap[d + 2] = a[s2 + o];
                        ap[d + 3] = a[s3 + o];
                    }
                }
            } else {
                for (int r = 0; r < MR; r++) {
                    if (r0 + r < rows) {
                        int s = aOff + (i0 + r0 + r) * ars + k0 * acs;
                        for (int kk = 0; kk < kc; kk++) {
                            ap[dst + kk * MR + r] = a[s + kk * acs];
                        }
                    } else {
                        for (int kk = 0; kk < kc; kk++) {
                            ap[dst + kk * MR + r] = 0f;
                        }
                    }
                }
            }
        }
    }

    /**
     * One MR x NR tile of C over one block of the reduction: {@code alpha} times the product, stored, or added to
     * what C holds; the bias and activation follow in {@link #finish}. Only a whole, unscaled tile of 8 rows takes
     * the 8-row kernel; any other tile of 8 rows goes to the 4-row kernel a half at a time, each half reading its 4
     * rows of every step.
     */
    private static void kernel(float[] ap, int aBase, float[] bp, int bBase, int kc, float[] c, int ci, int ldc,
                               int rows, int cols, boolean add, float alpha) {
        if (MR == 4 || rows <= 4) {
            kernel4(ap, aBase, bp, bBase, kc, c, ci, ldc, rows, cols, add, alpha);
        } else if (rows == 8 && cols == NR && alpha == 1f) {
            kernel8(ap, aBase, bp, bBase, kc, c, ci, ldc, add);
        } else {
            // a partial or scaled tile of 8 rows: its two halves, each reading its 4 rows of every step
            kernel4(ap, aBase, bp, bBase, kc, c, ci, ldc, 4, cols, add, alpha);
            kernel4(ap, aBase + 4, bp, bBase, kc, c, ci + 4 * ldc, ldc, rows - 4, cols, add, alpha);
        }
    }

    /**
     * The first (up to) 4 rows of a tile of packed A times a panel of B. Each kernel stays small and free of calls
     * that take or return vectors, so that the JIT compiles it with every vector operation intrinsified whatever else
     * ran before; the two kernels repeat each other's form for that reason.
     */
    private static void kernel4(float[] ap, int aBase, float[] bp, int bBase, int kc, float[] c, int ci, int ldc,
                                int rows, int cols, boolean add, float alpha) {
        FloatVector c00 = FloatVector.zero(S);
        FloatVector c01 = FloatVector.zero(S);
        FloatVector c10 = FloatVector.zero(S);
        FloatVector c11 = FloatVector.zero(S);
        FloatVector c20 = FloatVector.zero(S);
        FloatVector c21 = FloatVector.zero(S);
        FloatVector c30 = FloatVector.zero(S);
        FloatVector c31 = FloatVector.zero(S);
        // A's index is the loop's only variable and B's NR / MR times it, so that C2 addresses A with no
        // arithmetic of its own and B with one instruction: 19 instructions a step instead of 21, which is up to a
        // fifth faster when another thread shares the core
        int bShift = bBase - NR / MR * aBase;
        for (int ai = aBase, end = aBase + kc * MR; ai < end; ai += MR) {
            int bi = bShift + NR / MR * ai;
            FloatVector b0 = FloatVector.fromArray(S, bp, bi);
            FloatVector b1 = FloatVector.fromArray(S, bp, bi + L);
            FloatVector a0 = FloatVector.broadcast(S, ap[ai]);
            c00 = a0.fma(b0, c00);
            c01 = a0.fma(b1, c01);
            FloatVector a1 = FloatVector.broadcast(S, ap[ai + 1]);
            c10 = a1.fma(b0, c10);
            c11 = a1.fma(b1, c11);
            FloatVector a2 = FloatVector.broadcast(S, ap[ai + 2]);
            c20 = a2.fma(b0, c20);
            c21 = a2.fma(b1, c21);
            FloatVector a3 = FloatVector.broadcast(S, ap[ai + 3]);
            c30 = a3.fma(b0, c30);
            c31 = a3.fma(b1, c31);
        }
        if (alpha != 1f) {
            c00 = c00.mul(alpha);
            c01 = c01.mul(alpha);
            c10 = c10.mul(alpha);
            c11 = c11.mul(alpha);
            c20 = c20.mul(alpha);
            c21 = c21.mul(alpha);
            c30 = c30.mul(alpha);
            c31 = c31.mul(alpha);
        }
        if (rows == 4 && cols == NR) {
            int i1 = ci + ldc;
            int i2 = i1 + ldc;
            int i3 = i2 + ldc;
            if (add) {
                c00 = c00.add(FloatVector.fromArray(S, c, ci));
                c01 = c01.add(FloatVector.fromArray(S, c, ci + L));
                c10 = c10.add(FloatVector.fromArray(S, c, i1));
                c11 = c11.add(FloatVector.fromArray(S, c, i1 + L));
                c20 = c20.add(FloatVector.fromArray(S, c, i2));
                c21 = c21.add(FloatVector.fromArray(S, c, i2 + L));
                c30 = c30.add(FloatVector.fromArray(S, c, i3));
                c31 = c31.add(FloatVector.fromArray(S, c, i3 + L));
            }
            c00.intoArray(c, ci);
            c01.intoArray(c, ci + L);
            c10.intoArray(c, i1);
            c11.intoArray(c, i1 + L);
            c20.intoArray(c, i2);
            c21.intoArray(c, i2 + L);
            c30.intoArray(c, i3);
            c31.intoArray(c, i3 + L);
            return;
        }
        // a partial tile goes through a scratch tile, then only its valid part into C (stores into an array chosen
        // at run time between C and the scratch are not always intrinsified: each keeps an array of its own)
        float[] t = EDGE.get();
        c00.intoArray(t, 0);
        c01.intoArray(t, L);
        c10.intoArray(t, NR);
        c11.intoArray(t, NR + L);
        c20.intoArray(t, 2 * NR);
        c21.intoArray(t, 2 * NR + L);
        c30.intoArray(t, 3 * NR);
        c31.intoArray(t, 3 * NR + L);
        mergeEdge(t, c, ci, ldc, rows, cols, add);
    }

    /**
     * {@link #kernel4} for a whole tile of 8 rows, unscaled: 16 accumulators, which only AVX-512's 32 registers hold.
     * Partial and scaled tiles go to {@link #kernel4} a half at a time instead, which keeps this method small enough
     * for JDK 17's C2 to intrinsify every vector operation in it.
     */
    private static void kernel8(float[] ap, int aBase, float[] bp, int bBase, int kc, float[] c, int ci, int ldc,
                                boolean add) {
        FloatVector c00 = FloatVector.zero(S);
        FloatVector c01 = FloatVector.zero(S);
        FloatVector c10 = FloatVector.zero(S);
        FloatVector c11 = FloatVector.zero(S);
        FloatVector c20 = FloatVector.zero(S);
        FloatVector c21 = FloatVector.zero(S);
        FloatVector c30 = FloatVector.zero(S);
        FloatVector c31 = FloatVector.zero(S);
        FloatVector c40 = FloatVector.zero(S);
        FloatVector c41 = FloatVector.zero(S);
        FloatVector c50 = FloatVector.zero(S);
        FloatVector c51 = FloatVector.zero(S);
        FloatVector c60 = FloatVector.zero(S);
        FloatVector c61 = FloatVector.zero(S);
        FloatVector c70 = FloatVector.zero(S);
        FloatVector c71 = FloatVector.zero(S);
        int bShift = bBase - NR / MR * aBase;
        for (int ai = aBase, end = aBase + kc * MR; ai < end; ai += MR) {
            int bi = bShift + NR / MR * ai;
            FloatVector b0 = FloatVector.fromArray(S, bp, bi);
            FloatVector b1 = FloatVector.fromArray(S, bp, bi + L);
            FloatVector a0 = FloatVector.broadcast(S, ap[ai]);
            c00 = a0.fma(b0, c00);
            c01 = a0.fma(b1, c01);
            FloatVector a1 = FloatVector.broadcast(S, ap[ai + 1]);
            c10 = a1.fma(b0, c10);
            c11 = a1.fma(b1, c11);
            FloatVector a2 = FloatVector.broadcast(S, ap[ai + 2]);
            c20 = a2.fma(b0, c20);
            c21 = a2.fma(b1, c21);
            FloatVector a3 = FloatVector.broadcast(S, ap[ai + 3]);
            c30 = a3.fma(b0, c30);
            c31 = a3.fma(b1, c31);
            FloatVector a4 = FloatVector.broadcast(S, ap[ai + 4]);
            c40 = a4.fma(b0, c40);
            c41 = a4.fma(b1, c41);
            FloatVector a5 = FloatVector.broadcast(S, ap[ai + 5]);
            c50 = a5.fma(b0, c50);
            c51 = a5.fma(b1, c51);
            FloatVector a6 = FloatVector.broadcast(S, ap[ai + 6]);
            c60 = a6.fma(b0, c60);
            c61 = a6.fma(b1, c61);
            FloatVector a7 = FloatVector.broadcast(S, ap[ai + 7]);
            c70 = a7.fma(b0, c70);
            c71 = a7.fma(b1, c71);
        }
        int i1 = ci + ldc;
        int i2 = i1 + ldc;
        int i3 = i2 + ldc;
        int i4 = i3 + ldc;
        int i5 = i4 + ldc;
        int i6 = i5 + ldc;
        int i7 = i6 + ldc;
        if (add) {
            c00 = c00.add(FloatVector.fromArray(S, c, ci));
            c01 = c01.add(FloatVector.fromArray(S, c, ci + L));
            c10 = c10.add(FloatVector.fromArray(S, c, i1));
            c11 = c11.add(FloatVector.fromArray(S, c, i1 + L));
            c20 = c20.add(FloatVector.fromArray(S, c, i2));
            c21 = c21.add(FloatVector.fromArray(S, c, i2 + L));
            c30 = c30.add(FloatVector.fromArray(S, c, i3));
            c31 = c31.add(FloatVector.fromArray(S, c, i3 + L));
            c40 = c40.add(FloatVector.fromArray(S, c, i4));
            c41 = c41.add(FloatVector.fromArray(S, c, i4 + L));
            c50 = c50.add(FloatVector.fromArray(S, c, i5));
            c51 = c51.add(FloatVector.fromArray(S, c, i5 + L));
            c60 = c60.add(FloatVector.fromArray(S, c, i6));
            c61 = c61.add(FloatVector.fromArray(S, c, i6 + L));
            c70 = c70.add(FloatVector.fromArray(S, c, i7));
            c71 = c71.add(FloatVector.fromArray(S, c, i7 + L));
        }
        c00.intoArray(c, ci);
        c01.intoArray(c, ci + L);
        c10.intoArray(c, i1);
        c11.intoArray(c, i1 + L);
        c20.intoArray(c, i2);
        c21.intoArray(c, i2 + L);
        c30.intoArray(c, i3);
        c31.intoArray(c, i3 + L);
        c40.intoArray(c, i4);
        c41.intoArray(c, i4 + L);
        c50.intoArray(c, i5);
        c51.intoArray(c, i5 + L);
        c60.intoArray(c, i6);
        c61.intoArray(c, i6 + L);
        c70.intoArray(c, i7);
        c71.intoArray(c, i7 + L);
    }

    /**
     * {@link #kernel4} with A read in place: up to {@link #DIRECT_ROWS} rows from {@code a0}, {@code lda} apart, their
     * columns adjacent. A tile with fewer rows reads its last row again for the missing ones and keeps only its valid
     * part. The end (scaling, storing) repeats {@link #kernel4}'s, for the reason given there.
     */
    private static void rowKernel(float[] a, int a0, int lda, int rows, float[] bp, int bBase, int kc, float[] c,
                                  int ci, int ldc, int cols, boolean add, float alpha) {
        int a1 = rows > 1 ? a0 + lda : a0;
        int a2 = rows > 2 ? a1 + lda : a1;
        int a3 = rows > 3 ? a2 + lda : a2;
        FloatVector c00 = FloatVector.zero(S);
        FloatVector c01 = FloatVector.zero(S);
        FloatVector c10 = FloatVector.zero(S);
        FloatVector c11 = FloatVector.zero(S);
        FloatVector c20 = FloatVector.zero(S);
        FloatVector c21 = FloatVector.zero(S);
        FloatVector c30 = FloatVector.zero(S);
        FloatVector c31 = FloatVector.zero(S);
        for (int kk = 0; kk < kc; kk++) {
            int bi = bBase + kk * NR;
            FloatVector b0 = FloatVector.fromArray(S, bp, bi);
            FloatVector b1 = FloatVector.fromArray(S, bp, bi + L);
            FloatVector x0 = FloatVector.broadcast(S, a[a0 + kk]);
            c00 = x0.fma(b0, c00);
            c01 = x0.fma(b1, c01);
            FloatVector x1 = FloatVector.broadcast(S, a[a1 + kk]);
            c10 = x1.fma(b0, c10);
            c11 = x1.fma(b1, c11);
            FloatVector x2 = FloatVector.broadcast(S, a[a2 + kk]);
            c20 = x2.fma(b0, c20);
            c21 = x2.fma(b1, c21);
            FloatVector x3 = FloatVector.broadcast(S, a[a3 + kk]);
            c30 = x3.fma(b0, c30);
            c31 = x3.fma(b1, c31);
        }
        if (alpha != 1f) {
            c00 = c00.mul(alpha);
            c01 = c01.mul(alpha);
            c10 = c10.mul(alpha);
            c11 = c11.mul(alpha);
            c20 = c20.mul(alpha);
            c21 = c21.mul(alpha);
            c30 = c30.mul(alpha);
            c31 = c31.mul(alpha);
        }
        if (rows == DIRECT_ROWS && cols == NR) {
            int i1 = ci + ldc;
            int i2 = i1 + ldc;
            int i3 = i2 + ldc;
            if (add) {
                c00 = c00.add(FloatVector.fromArray(S, c, ci));
                c01 = c01.add(FloatVector.fromArray(S, c, ci + L));
                c10 = c10.add(FloatVector.fromArray(S, c, i1));
                c11 = c11.add(FloatVector.fromArray(S, c, i1 + L));
                c20 = c20.add(FloatVector.fromArray(S, c, i2));
                c21 = c21.add(FloatVector.fromArray(S, c, i2 + L));
                c30 = c30.add(FloatVector.fromArray(S, c, i3));
                c31 = c31.add(FloatVector.fromArray(S, c, i3 + L));
            }
            c00.intoArray(c, ci);
            c01.intoArray(c, ci + L);
            c10.intoArray(c, i1);
            c11.intoArray(c, i1 + L);
            c20.intoArray(c, i2);
            c21.intoArray(c, i2 + L);
            c30.intoArray(c, i3);
            c31.intoArray(c, i3 + L);
            return;
        }
        float[] t = EDGE.get();
        c00.intoArray(t, 0);
        c01.intoArray(t, L);
        c10.intoArray(t, NR);
        c11.intoArray(t, NR + L);
        c20.intoArray(t, 2 * NR);
        c21.intoArray(t, 2 * NR + L);
        c30.intoArray(t, 3 * NR);
        c31.intoArray(t, 3 * NR + L);
        mergeEdge(t, c, ci, ldc, rows, cols, add);
    }

    /** Stores (or adds) the valid {@code rows x cols} part of a scratch tile into C. */
    private static void mergeEdge(float[] t, float[] c, int ci, int ldc, int rows, int cols, boolean add) {
        for (int r = 0; r < rows; r++) {
            int row = ci + r * ldc;
            for (int j = 0; j < cols; j++) {
                c[row + j] = add ? c[row + j] + t[r * NR + j] : t[r * NR + j];
            }
        }
    }

    /**
     * The end of an epilogue on a finished part of C ({@code rows x cols} at {@code ci}, its first row and column in
     * the whole product being {@code row0} and {@code col0}): the bias, then the activation, a row at a time along the
     * whole part (a strip of C still in the L2 cache) rather than a micro-tile's 16 values at a time.
     */
    private static void finish(float[] c, int ci, int ldc, int rows, int cols, Epilogue ep, int row0, int col0) {
        float[] bias = ep.bias();
        Activation act = ep.activation();
        int bo = ep.biasOffset();
        for (int r = 0; r < rows; r++) {
            int row = ci + r * ldc;
            if (bias != null) {
                if (ep.biasPerRow()) {
                    float v = bias[bo + row0 + r];
                    for (int j = 0; j < cols; j++) {
                        c[row + j] += v;
                    }
                } else {
                    int b = bo + col0;
                    for (int j = 0; j < cols; j++) {
                        c[row + j] += bias[b + j];
                    }
                }
            }
            if (act.kind() != Activation.Kind.NONE) {
                act.apply(c, row, cols);
            }
        }
    }

    /** {@link #finish} on rows {@code [i0, i0 + rows)} of C across the columns of panels {@code [p0, p1)}. */
    private static void finishPanels(float[] c, int cOff, int ldc, int i0, int rows, int n, Epilogue ep, int p0,
                                     int p1) {
        int col0 = p0 * NR;
        finish(c, cOff + i0 * ldc + col0, ldc, rows, Math.min(n, p1 * NR) - col0, ep, i0, col0);
    }

    /** Whether an epilogue leaves something for {@link #finish} after the product is stored. */
    private static boolean needsFinish(Epilogue ep) {
        return ep.bias() != null || ep.activation().kind() != Activation.Kind.NONE;
    }
}
