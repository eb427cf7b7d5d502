package io.ortex.ep.cpu.ops.math;

import io.ortex.api.ElementType;
import io.ortex.api.InvalidArgumentException;
import io.ortex.api.NotImplementedException;
import io.ortex.api.Tensor;
import io.ortex.api.spi.KernelContext;
import io.ortex.api.spi.NodeView;
import io.ortex.api.spi.ValueView;
import io.ortex.ep.cpu.CpuKernel;
import io.ortex.ep.cpu.linalg.Epilogue;
import io.ortex.ep.cpu.linalg.Gemm;
import io.ortex.ep.cpu.linalg.PackedB;
import io.ortex.ep.cpu.ops.support.Broadcast;
import io.ortex.ep.cpu.ops.support.Values;
import io.ortex.ep.cpu.ops.support.WorkingArrays;
import java.util.Arrays;

/**
 * MatMul: NumPy {@code matmul} semantics (1-D operands promoted and the added axis removed, batch axes
 * broadcast). Float32 (and float16/bfloat16 through float32) runs on {@link Gemm} with B packed once when it is a
 * constant initializer, into memory the run recycles; batched products of a non-constant B (attention) run one
 * product per task. Float64 and integer types use a plain loop in double or 64-bit integer arithmetic.
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
        PackedB[] constB = null;
        long[] constShape = null;
        if (bv.isConstantInitializer()) {
            Tensor b = bv.initializer().orElse(null);
            if (b != null && WorkingArrays.viaFloat(b.type()) && b.rank() >= 1) {
                constShape = b.shape();
                constB = packAll(Values.toFloats(b), b.shape());
            }
        }
        PackedB[] packed = constB;
        long[] packedShape = constShape;
        return (in, ctx) -> new Tensor[] {multiply(in[0], in[1], packed, packedShape, Epilogue.NONE, ctx)};
    }

    /**
     * Packs every batch of a float B of the given shape.
     *
     * @param b the elements
     * @param shape B's shape, rank 1 or more
     * @return one packed matrix per batch of B
     */
    public static PackedB[] packAll(float[] b, long[] shape) {
        long[] b2 = shape.length == 1 ? new long[] {shape[0], 1} : shape;
        int k = (int) b2[b2.length - 2];
        int n = (int) b2[b2.length - 1];
        int count = WorkingArrays.product(b2, 0, b2.length - 2);
        PackedB[] packs = new PackedB[count];
        for (int i = 0; i < count; i++) {
            packs[i] = Gemm.packB(b, i * k * n, n, 1, k, n);
        }
        return packs;
    }

    /**
     * Multiplies, applying an epilogue to each product (a fused bias or activation).
     *
     * @param a the left operand
     * @param b the right operand
     * @param packedB B packed at compile time, or {@code null}
     * @param packedShape the shape B had when packed
     * @param epilogue what is done with each product before it is stored; for float32 only
     * @param ctx the run's context
     * @return the product
     */
    public static Tensor multiply(Tensor a, Tensor b, PackedB[] packedB, long[] packedShape, Epilogue epilogue,
                                  KernelContext ctx) {
        if (a.type() != b.type()) {
            throw new InvalidArgumentException("MatMul inputs have different types " + a.type() + " and "
                    + b.type());
        }
        Dims d = dims(a.shape(), b.shape());
        ElementType type = a.type();
        if (WorkingArrays.viaFloat(type)) {
            PackedB[] packs = packedB != null && Arrays.equals(packedShape, b.shape()) ? packedB : null;
            if (type == ElementType.FLOAT) {
                Tensor out = ctx.allocateUninitialized(ElementType.FLOAT, d.outShape());
                floatProduct(a.floats(), b.floats(), packs, d, out.floats(), epilogue, ctx);
                return out;
            }
            float[] out = new float[Math.multiplyExact(Math.multiplyExact(d.batchCount(), d.m()), d.n())];
            floatProduct(Values.toFloats(a), Values.toFloats(b), packs, d, out, epilogue, ctx);
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

    private static void floatProduct(float[] a, float[] b, PackedB[] packs, Dims d, float[] c, Epilogue ep,
                                     KernelContext ctx) {
        int m = d.m();
        int k = d.k();
        int n = d.n();
        int batches = d.batchCount();
        if (c.length == 0) {
            return;
        }
        int countA = WorkingArrays.product(d.batchA(), 0, d.batchA().length);
        int countB = WorkingArrays.product(d.batchB(), 0, d.batchB().length);
        if (countB == 1 && countA == batches) {
            // B is shared by every batch: fold the batches of A into its rows
            if (packs != null) {
                Gemm.multiply(a, 0, k, 1, batches * m, packs[0], c, 0, n, ep, ctx);
            } else {
                Gemm.multiply(a, 0, k, 1, batches * m, b, 0, n, 1, k, n, c, 0, n, ep, ctx);
            }
            return;
        }
        int[] ia = Broadcast.indexMap(d.batchA(), d.batch());
        int[] ib = Broadcast.indexMap(d.batchB(), d.batch());
        if (batches >= ctx.intraOpThreads()) {
            // one product per task: the products of attention heads are too small to split
            ctx.parallelFor(batches, 1, (from, to) -> {
                for (int bt = from; bt < to; bt++) {
                    product(a, b, packs, ia[bt], ib[bt], m, k, n, c, bt * m * n, ep, null);
                }
            });
        } else {
            for (int bt = 0; bt < batches; bt++) {
                product(a, b, packs, ia[bt], ib[bt], m, k, n, c, bt * m * n, ep, ctx);
            }
        }
    }

    private static void product(float[] a, float[] b, PackedB[] packs, int batchA, int batchB, int m, int k, int n,
                                float[] c, int cOff, Epilogue ep, KernelContext ctx) {
        if (packs != null) {
            Gemm.multiply(a, batchA * m * k, k, 1, m, packs[batchB], c, cOff, n, ep, ctx);
        } else {
            Gemm.multiply(a, batchA * m * k, k, 1, m, b, batchB * k * n, n, 1, k, n, c, cOff, n, ep, ctx);
        }
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
