package io.ortex.ep.cpu.ops.math;

import io.ortex.api.ElementType;
import io.ortex.api.InvalidArgumentException;
import io.ortex.api.NotImplementedException;
import io.ortex.api.Tensor;
import io.ortex.api.spi.KernelContext;
import io.ortex.api.spi.NodeView;
import io.ortex.api.spi.ValueView;
import io.ortex.ep.cpu.CpuKernel;
import io.ortex.ep.cpu.ops.support.Broadcast;
import io.ortex.ep.cpu.ops.support.Values;
import io.ortex.ep.cpu.ops.support.WorkingArrays;
import java.util.Arrays;

/**
 * MatMul: NumPy {@code matmul} semantics (1-D operands promoted and the added axis removed, batch axes
 * broadcast). Float32 (and float16/bfloat16 through float32) runs on {@link Sgemm} with B packed once when it is a
 * constant initializer; float64 and integer types use a plain loop in double or 64-bit integer arithmetic.
 */
public final class MatMulKernel {
    /** Rows of A handed to one task. */
    public static final int ROW_BLOCK = 96;

    private MatMulKernel() {
    }

    /**
     * The operand shapes of one product, normalised to rank 2 or more. Immutable.
     *
     * @param batch the broadcast batch axes of the result
     * @param batchA the batch axes of A
     * @param batchB the batch axes of B
     * @param m the rows of A
     * @param k the columns of A and rows of B
     * @param n the columns of B
     * @param outShape the result's shape, with the axes added for 1-D operands removed
     */
    public record Dims(long[] batch, long[] batchA, long[] batchB, int m, int k, int n, long[] outShape) {
        int batchCount() {
            return WorkingArrays.product(batch, 0, batch.length);
        }
    }

    /**
     * Works out the shapes of a product with NumPy {@code matmul} semantics.
     *
     * @param a the shape of A
     * @param b the shape of B
     * @return the shapes
     * @throws InvalidArgumentException when an operand is a scalar, the inner dimensions differ or the batch
     *     axes do not broadcast
     */
    public static Dims dims(long[] a, long[] b) {
        if (a.length == 0 || b.length == 0) {
            throw new InvalidArgumentException("MatMul inputs must have rank 1 or more, got [" + Tensor.shapeString(a)
                    + "] and [" + Tensor.shapeString(b) + "]");
        }
        long[] a2 = a.length == 1 ? new long[] {1, a[0]} : a;
        long[] b2 = b.length == 1 ? new long[] {b[0], 1} : b;
        int m = (int) a2[a2.length - 2];
        int k = (int) a2[a2.length - 1];
        int kb = (int) b2[b2.length - 2];
        int n = (int) b2[b2.length - 1];
        if (k != kb) {
            throw new InvalidArgumentException("MatMul inner dimensions differ: A is [" + Tensor.shapeString(a)
                    + "], B is [" + Tensor.shapeString(b) + "]");
        }
        long[] batchA = Arrays.copyOf(a2, a2.length - 2);
        long[] batchB = Arrays.copyOf(b2, b2.length - 2);
        long[] batch = Broadcast.shape(batchA, batchB);
        long[] out = Arrays.copyOf(batch, batch.length + 2);
        out[batch.length] = m;
        out[batch.length + 1] = n;
        if (b.length == 1) {
            out = Arrays.copyOf(out, out.length - 1);
        }
        if (a.length == 1) {
            long[] o = new long[out.length - 1];
            System.arraycopy(out, 0, o, 0, batch.length);
            System.arraycopy(out, batch.length + 1, o, batch.length, out.length - batch.length - 1);
            out = o;
        }
        return new Dims(batch, batchA, batchB, m, k, n, out);
    }

    static CpuKernel create(NodeView node) {
        ValueView bv = node.inputs().get(1);
        PackedMatrix[] constB = null;
        long[] constShape = null;
        if (bv.isConstantInitializer()) {
            Tensor b = bv.initializer().orElse(null);
            if (b != null && WorkingArrays.viaFloat(b.type()) && b.rank() >= 1) {
                constShape = b.shape();
                constB = packAll(Values.toFloats(b), b.shape());
            }
        }
        PackedMatrix[] packed = constB;
        long[] packedShape = constShape;
        return (in, ctx) -> new Tensor[] {multiply(in[0], in[1], packed, packedShape, ctx)};
    }

    /** Packs every batch of a float B of the given shape. */
    private static PackedMatrix[] packAll(float[] b, long[] shape) {
        long[] b2 = shape.length == 1 ? new long[] {shape[0], 1} : shape;
        int k = (int) b2[b2.length - 2];
        int n = (int) b2[b2.length - 1];
        int count = WorkingArrays.product(b2, 0, b2.length - 2);
        PackedMatrix[] packs = new PackedMatrix[count];
        for (int i = 0; i < count; i++) {
            packs[i] = PackedMatrix.pack(b, i * k * n, n, 1, k, n);
        }
        return packs;
    }

    static Tensor multiply(Tensor a, Tensor b, PackedMatrix[] packedB, long[] packedShape, KernelContext ctx) {
        if (a.type() != b.type()) {
            throw new InvalidArgumentException("MatMul inputs have different types " + a.type() + " and "
                    + b.type());
        }
        Dims d = dims(a.shape(), b.shape());
        ElementType type = a.type();
        if (WorkingArrays.viaFloat(type)) {
            PackedMatrix[] packs = packedB != null && Arrays.equals(packedShape, b.shape()) ? packedB : null;
            float[] out = floatProduct(Values.toFloats(a), Values.toFloats(b), packs, d, ctx);
            return WorkingArrays.fromFloats(type, d.outShape(), out);
        }
        if (type == ElementType.DOUBLE) {
            return Tensor.of(type, d.outShape(), doubleProduct(a.doubles(), b.doubles(), d));
        }
        if (type.isInteger()) {
            return Values.fromLongs(type, d.outShape(), longProduct(WorkingArrays.longs(a), WorkingArrays.longs(b), d));
        }
        throw new NotImplementedException("MatMul is not implemented for type " + type);
    }

    private static float[] floatProduct(float[] a, float[] b, PackedMatrix[] packs, Dims d, KernelContext ctx) {
        int m = d.m();
        int k = d.k();
        int n = d.n();
        int batches = d.batchCount();
        float[] c = new float[Math.multiplyExact(Math.multiplyExact(batches, m), n)];
        if (c.length == 0) {
            return c;
        }
        int countB = WorkingArrays.product(d.batchB(), 0, d.batchB().length);
        if (countB == 1) {
            // B is shared by every batch: fold the batches of A into its rows
            PackedMatrix p = packs != null ? packs[0] : PackedMatrix.pack(b, 0, n, 1, k, n);
            rowsTimesPacked(a, 0, batches * m, k, p, c, 0, ctx);
            return c;
        }
        PackedMatrix[] bp = packs;
        if (bp == null) {
            PackedMatrix[] fresh = new PackedMatrix[countB];
            ctx.parallelFor(countB, 1, (from, to) -> {
                for (int i = from; i < to; i++) {
                    fresh[i] = PackedMatrix.pack(b, i * k * n, n, 1, k, n);
                }
            });
            bp = fresh;
        }
        PackedMatrix[] bPacks = bp;
        int[] ia = Broadcast.indexMap(d.batchA(), d.batch());
        int[] ib = Broadcast.indexMap(d.batchB(), d.batch());
        int rowBlocks = (m + ROW_BLOCK - 1) / ROW_BLOCK;
        int panels = PackedMatrix.panels(n);
        int units = batches * rowBlocks * panels;
        ctx.parallelFor(units, 1, (from, to) -> {
            for (int u = from; u < to; u++) {
                int p = u % panels;
                int rb = (u / panels) % rowBlocks;
                int bt = u / (panels * rowBlocks);
                PackedMatrix pm = bPacks[ib[bt]];
                int i0 = rb * ROW_BLOCK;
                int i1 = Math.min(m, i0 + ROW_BLOCK);
                Sgemm.panel(a, ia[bt] * m * k, k, i0, i1, k, pm.rows(), p * k, pm.width(p), c,
                        bt * m * n + p * PackedMatrix.PANEL, n, 1f, false);
            }
        });
        return c;
    }

    /**
     * Computes {@code C = A x B} for a row-major A of {@code rows x k} and a packed B, in parallel over row blocks
     * and panels.
     */
    static void rowsTimesPacked(float[] a, int aOff, int rows, int k, PackedMatrix b, float[] c, int cOff,
            KernelContext ctx) {
        int n = b.columnCount();
        int rowBlocks = (rows + ROW_BLOCK - 1) / ROW_BLOCK;
        int panels = b.panelCount();
        ctx.parallelFor(rowBlocks * panels, 1, (from, to) -> {
            for (int u = from; u < to; u++) {
                int p = u % panels;
                int i0 = (u / panels) * ROW_BLOCK;
                int i1 = Math.min(rows, i0 + ROW_BLOCK);
                Sgemm.panel(a, aOff, k, i0, i1, k, b.rows(), p * k, b.width(p), c, cOff + p * PackedMatrix.PANEL,
                        n, 1f, false);
            }
        });
    }

    private static double[] doubleProduct(double[] a, double[] b, Dims d) {
        int m = d.m();
        int k = d.k();
        int n = d.n();
        int batches = d.batchCount();
        double[] c = new double[batches * m * n];
        if (c.length == 0) {
            return c;
        }
        int[] ia = Broadcast.indexMap(d.batchA(), d.batch());
        int[] ib = Broadcast.indexMap(d.batchB(), d.batch());
        for (int bt = 0; bt < batches; bt++) {
            int ao = ia[bt] * m * k;
            int bo = ib[bt] * k * n;
            int co = bt * m * n;
            for (int i = 0; i < m; i++) {
                for (int kk = 0; kk < k; kk++) {
                    double av = a[ao + i * k + kk];
                    int br = bo + kk * n;
                    int cr = co + i * n;
                    for (int j = 0; j < n; j++) {
                        c[cr + j] += av * b[br + j];
                    }
                }
            }
        }
        return c;
    }

    /**
     * Multiplies integer matrices exactly in 64-bit arithmetic.
     *
     * @param a the elements of A, row-major
     * @param b the elements of B, row-major
     * @param d the shapes, from {@link #dims}
     * @return the elements of the product, row-major
     */
    public static long[] longProduct(long[] a, long[] b, Dims d) {
        int m = d.m();
        int k = d.k();
        int n = d.n();
        int batches = d.batchCount();
        long[] c = new long[batches * m * n];
        if (c.length == 0) {
            return c;
        }
        int[] ia = Broadcast.indexMap(d.batchA(), d.batch());
        int[] ib = Broadcast.indexMap(d.batchB(), d.batch());
        for (int bt = 0; bt < batches; bt++) {
            int ao = ia[bt] * m * k;
            int bo = ib[bt] * k * n;
            int co = bt * m * n;
            for (int i = 0; i < m; i++) {
                for (int kk = 0; kk < k; kk++) {
                    long av = a[ao + i * k + kk];
                    int br = bo + kk * n;
                    int cr = co + i * n;
                    for (int j = 0; j < n; j++) {
                        c[cr + j] += av * b[br + j];
                    }
                }
            }
        }
        return c;
    }
}
