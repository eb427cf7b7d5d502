package io.ortex.ep.example.program;

import io.ortex.api.InvalidModelException;
import io.ortex.api.Names;
import io.ortex.api.Tensor;

/**
 * Turns constant initializers into the layouts the op kernels read, once, when a partition is compiled: the work an
 * NPU compiler does when it uploads weights. Each method returns a {@link PackedWeight} whose name records the
 * packing, and leaves the source tensor untouched. Stateless.
 */
public final class WeightPacking {
    private WeightPacking() {
    }

    /**
     * Packs the right operand of a {@code MatMul} of rank 2 or more: its last two axes are swapped, giving
     * {@code [..., N, K]}, which {@link MatMulAttributes#bTransposed()} then announces.
     *
     * @param name the initializer's name
     * @param b the weight, {@code [..., K, N]}
     * @return the packed weight
     */
    public static PackedWeight matMulRight(String name, Tensor b) {
        if (b.rank() < 2) {
            throw new InvalidModelException("MatMul weight " + Names.quote(name) + " of rank " + b.rank()
                    + " is not packed");
        }
        int k = (int) b.dim(b.rank() - 2);
        int n = (int) b.dim(b.rank() - 1);
        long[] shape = b.shape();
        shape[shape.length - 2] = n;
        shape[shape.length - 1] = k;
        int count = k * n == 0 ? 0 : b.size() / (k * n);
        return new PackedWeight(name + "#nk", Tensor.ofFloats(MatrixMath.transpose(b.floats(), count, k, n), shape));
    }

    /**
     * Packs the B operand of a {@code Gemm} as {@code [N, K]}, so the instruction can use {@code transB=1}.
     *
     * @param name the initializer's name
     * @param b the weight as the model stores it
     * @param transB the node's {@code transB}: true when {@code b} is already {@code [N, K]}
     * @return the packed weight
     */
    public static PackedWeight gemmRight(String name, Tensor b, boolean transB) {
        if (b.rank() != 2) {
            throw new InvalidModelException("Gemm weight " + Names.quote(name) + " must be 2-D, got "
                    + Tensor.shapeString(b.shape()));
        }
        if (transB) {
            return new PackedWeight(name + "#nk", Tensor.ofFloats(b.floats().clone(), b.shape()));
        }
        int k = (int) b.dim(0);
        int n = (int) b.dim(1);
        return new PackedWeight(name + "#nk", Tensor.ofFloats(MatrixMath.transpose(b.floats(), 1, k, n), n, k));
    }

    /**
     * Packs a {@code Conv} weight {@code [M, C/group, (kh,) kw]} as the filter matrix {@code [M, C/group*kh*kw]}:
     * each row is one filter, in the order the kernel gathers input patches.
     *
     * @param name the initializer's name
     * @param w the weight
     * @return the packed weight
     */
    public static PackedWeight convFilters(String name, Tensor w) {
        if (w.rank() < 3) {
            throw new InvalidModelException("Conv weight " + Names.quote(name) + " must have rank 3 or 4, got "
                    + Tensor.shapeString(w.shape()));
        }
        long m = w.dim(0);
        long k = m == 0 ? 0 : w.size() / m;
        return new PackedWeight(name + "#mk", Tensor.ofFloats(w.floats().clone(), m, k));
    }

    /**
     * Keeps any other constant operand (an Add or Mul operand, a Gemm C, a Conv bias) as it is.
     *
     * @param name the initializer's name
     * @param value the value
     * @return the weight
     */
    public static PackedWeight asIs(String name, Tensor value) {
        return new PackedWeight(name, Tensor.ofFloats(value.floats().clone(), value.shape()));
    }
}
