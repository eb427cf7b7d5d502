package io.ortex.ep.cpu.ops.quantization;

import io.ortex.api.InvalidArgumentException;
import io.ortex.api.Tensor;
import java.util.Arrays;

/**
 * Which scale (and zero point) each element of a quantized tensor uses: one for the whole tensor, one per index
 * along an axis, or one per block of {@code blockSize} indices along an axis (the scale then has the rank of the
 * tensor, with {@code ceil(D / blockSize)} along the axis). The tensor is walked as rows {@code (outer, k)} of
 * {@code inner} contiguous elements; the scale of element {@code in} of a row is
 * {@code rowBase(outer, k) + in * innerStride()}.
 */
final class QuantGranularity {
    private final int outer;
    private final int axisSize;
    private final int inner;
    private final int blockSize;
    private final int scaleAxisSize;
    private final Kind kind;

    private enum Kind { TENSOR, AXIS, BLOCKED }

    private QuantGranularity(int outer, int axisSize, int inner, int blockSize, int scaleAxisSize, Kind kind) {
        this.outer = outer;
        this.axisSize = axisSize;
        this.inner = inner;
        this.blockSize = blockSize;
        this.scaleAxisSize = scaleAxisSize;
        this.kind = kind;
    }

    /**
     * Works out the granularity from the shapes and checks that they fit together.
     *
     * @param op the op name, for messages
     * @param x the quantized or full-precision tensor
     * @param scale the scale
     * @param zeroPoint the zero point, or {@code null}
     * @param axis the axis attribute, possibly negative
     * @param blockSize the block_size attribute, 0 when quantization is not blocked
     * @param perAxisAllowed whether the opset allows per-axis scales (13 and later)
     * @return the granularity
     * @throws InvalidArgumentException when the scale's shape fits none of the granularities
     */
    static QuantGranularity of(String op, Tensor x, Tensor scale, Tensor zeroPoint, long axis, long blockSize,
            boolean perAxisAllowed) {
        boolean single = scale.size() == 1 && zeroPoint != null && zeroPoint.size() == 1;
        if (zeroPoint != null && !single && !Arrays.equals(scale.shape(), zeroPoint.shape())) {
            throw new InvalidArgumentException(op + ": the zero point has shape "
                    + Tensor.shapeString(zeroPoint.shape()) + ", the scale " + Tensor.shapeString(scale.shape())
                    + "; they must be equal (or both hold one value)");
        }
        if (blockSize < 0) {
            throw new InvalidArgumentException(op + " attribute 'block_size' must not be negative, got "
                    + blockSize);
        }
        if (blockSize == 0 && scale.size() == 1 && scale.rank() <= 1) {
            return new QuantGranularity(1, 1, x.size(), 0, 1, Kind.TENSOR);
        }
        if (!perAxisAllowed) {
            throw new InvalidArgumentException(op + ": the scale must be a scalar at this opset, it has shape "
                    + Tensor.shapeString(scale.shape()));
        }
        int rank = x.rank();
        if (axis < -rank || axis >= rank) {
            throw new InvalidArgumentException(op + " attribute 'axis' is " + axis + ", outside [-" + rank + ", "
                    + rank + ")");
        }
        int a = (int) (axis < 0 ? axis + rank : axis);
        long[] xs = x.shape();
        int outer = 1;
        for (int i = 0; i < a; i++) {
            outer *= (int) xs[i];
        }
        int inner = 1;
        for (int i = a + 1; i < rank; i++) {
            inner *= (int) xs[i];
        }
        int d = (int) xs[a];
        if (blockSize == 0) {
            if (scale.rank() != 1 || scale.dim(0) != d) {
                throw new InvalidArgumentException(op + ": a per-axis scale must be 1-D of size " + d
                        + " (axis " + a + " of " + Tensor.shapeString(xs) + "), it has shape "
                        + Tensor.shapeString(scale.shape()));
            }
            return new QuantGranularity(outer, d, inner, 0, d, Kind.AXIS);
        }
        long[] expected = xs.clone();
        expected[a] = (d + blockSize - 1) / blockSize;
        if (!Arrays.equals(expected, scale.shape())) {
            throw new InvalidArgumentException(op + ": with block_size " + blockSize + " along axis " + a
                    + " the scale must have shape " + Tensor.shapeString(expected) + ", it has "
                    + Tensor.shapeString(scale.shape()));
        }
        return new QuantGranularity(outer, d, inner, (int) blockSize, (int) expected[a], Kind.BLOCKED);
    }

    /**
     * Gets the number of rows, {@code outer * axisSize}.
     *
     * @return the row count
     */
    int rows() {
        return outer * axisSize;
    }

    /**
     * Gets the number of contiguous elements in a row.
     *
     * @return the row length
     */
    int inner() {
        return inner;
    }

    /**
     * Gets the scale index of a row's first element.
     *
     * @param row the row, {@code outer * axisSize + k}
     * @return the index into the scale
     */
    int rowBase(int row) {
        switch (kind) {
            case TENSOR: return 0;
            case AXIS: return row % axisSize;
            default: return ((row / axisSize) * scaleAxisSize + (row % axisSize) / blockSize) * inner;
        }
    }

    /**
     * Gets how far the scale index moves from one element of a row to the next.
     *
     * @return 1 for blocked quantization, otherwise 0
     */
    int innerStride() {
        return kind == Kind.BLOCKED ? 1 : 0;
    }
}
