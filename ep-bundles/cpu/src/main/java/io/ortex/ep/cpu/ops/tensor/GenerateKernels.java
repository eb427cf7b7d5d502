package io.ortex.ep.cpu.ops.tensor;

import io.ortex.api.ElementType;
import io.ortex.api.InvalidArgumentException;
import io.ortex.api.InvalidModelException;
import io.ortex.api.NotImplementedException;
import io.ortex.api.Tensor;
import io.ortex.api.spi.NodeView;
import io.ortex.ep.cpu.CpuKernel;
import io.ortex.ep.cpu.ops.support.ElementArrays;
import io.ortex.ep.cpu.ops.support.Shapes;
import io.ortex.ep.cpu.ops.support.Values;

/** Ops that make new tensors from a few values: ConstantOfShape, EyeLike, Range, OneHot and Trilu. */
final class GenerateKernels {
    private GenerateKernels() {
    }

    /**
     * ConstantOfShape: a tensor of the given shape filled with the one-element {@code value} attribute (any type;
     * float32 0 by default).
     *
     * @param node the node
     * @return the kernel
     */
    static CpuKernel constantOfShape(NodeView node) {
        Tensor value = node.tensorAttr("value");
        if (value == null) {
            value = Tensor.ofFloats(new float[] {0f}, 1);
        }
        if (value.size() != 1) {
            throw new InvalidModelException("attribute 'value' must hold one element, it has "
                    + value.size());
        }
        Tensor v = value;
        return (in, ctx) -> {
            long[] shape = Shapes.longs(in[0], "input");
            int n = Tensor.checkedElementCount(shape);
            Object dst = ElementArrays.allocate(v.type(), n);
            ElementArrays.fill(dst, 0, n, v.data(), 0);
            return new Tensor[] {Tensor.of(v.type(), shape, dst)};
        };
    }

    /**
     * EyeLike: a 2-D tensor of the input's shape with ones on diagonal {@code k}; type from {@code dtype} or the
     * input.
     *
     * @param node the node
     * @return the kernel
     */
    static CpuKernel eyeLike(NodeView node) {
        long k = node.intAttr("k", 0);
        ElementType dtype = node.attribute("dtype").isPresent()
                ? ElementType.fromCode((int) node.intAttr("dtype", 1)) : null;
        return (in, ctx) -> {
            Tensor x = in[0];
            if (x.rank() != 2) {
                throw new InvalidArgumentException("EyeLike needs a 2-D input, got shape "
                        + Tensor.shapeString(x.shape()));
            }
            ElementType type = dtype != null ? dtype : x.type();
            if (type == ElementType.STRING) {
                throw new NotImplementedException("EyeLike output type string is not supported");
            }
            long rows = x.dim(0);
            long cols = x.dim(1);
            Tensor out = Tensor.zeros(type, rows, cols);
            Object one = Values.fromLongs(type, new long[0], new long[] {1}).data();
            for (long i = 0; i < rows; i++) {
                long j = i + k;
                if (j >= 0 && j < cols) {
                    int at = (int) (i * cols + j);
                    System.arraycopy(one, 0, out.data(), at, 1);
                }
            }
            return new Tensor[] {out};
        };
    }

    /**
     * Range: {@code start + i * delta} for {@code i < max(ceil((limit - start) / delta), 0)}.
     *
     * @param node the node
     * @return the kernel
     */
    static CpuKernel range(NodeView node) {
        return (in, ctx) -> {
            ElementType type = in[0].type();
            if (in[1].type() != type || in[2].type() != type) {
                throw new InvalidArgumentException("start, limit and delta must have the same type");
            }
            if (type.isFloatingPoint()) {
                double start = in[0].getDouble(0);
                double limit = in[1].getDouble(0);
                double delta = in[2].getDouble(0);
                if (delta == 0) {
                    throw new InvalidArgumentException("delta is 0");
                }
                long n = Math.max(0, (long) Math.ceil((limit - start) / delta));
                double[] v = new double[Math.toIntExact(n)];
                for (int i = 0; i < v.length; i++) {
                    v[i] = start + i * delta;
                }
                return new Tensor[] {Values.fromDoubles(type, new long[] {n}, v)};
            }
            if (!type.isInteger()) {
                throw new NotImplementedException("Range is not implemented for " + type);
            }
            long start = in[0].getLong(0);
            long limit = in[1].getLong(0);
            long delta = in[2].getLong(0);
            if (delta == 0) {
                throw new InvalidArgumentException("delta is 0");
            }
            long span = limit - start;
            long n = Math.max(0, span / delta + (span % delta != 0 && (span > 0) == (delta > 0) ? 1 : 0));
            long[] v = new long[Math.toIntExact(n)];
            for (int i = 0; i < v.length; i++) {
                v[i] = start + i * delta;
            }
            return new Tensor[] {Values.fromLongs(type, new long[] {n}, v)};
        };
    }

    /**
     * OneHot: {@code values[1]} where the index along the new axis equals the input index (negative ones count
     * from {@code depth}), {@code values[0]} elsewhere.
     *
     * @param node the node
     * @return the kernel
     */
    static CpuKernel oneHot(NodeView node) {
        long axisAttr = node.intAttr("axis", -1);
        return (in, ctx) -> {
            Tensor idx = in[0];
            long depth = (long) in[1].getDouble(0);
            Tensor values = in[2];
            if (values.size() != 2) {
                throw new InvalidArgumentException("values must hold [off, on], it has " + values.size()
                        + " elements");
            }
            if (depth < 1) {
                throw new InvalidArgumentException("depth " + depth + " must be positive");
            }
            long[] is = idx.shape();
            int rank = is.length + 1;
            int axis = Shapes.axis(axisAttr, rank, "axis");
            long[] out = new long[rank];
            System.arraycopy(is, 0, out, 0, axis);
            out[axis] = depth;
            System.arraycopy(is, axis, out, axis + 1, is.length - axis);
            int outer = Shapes.product(is, 0, axis);
            int inner = Shapes.product(is, axis, is.length);
            int n = Tensor.checkedElementCount(out);
            int[] map = new int[n];
            int d = (int) depth;
            for (int o = 0; o < outer; o++) {
                for (int j = 0; j < inner; j++) {
                    double raw = idx.getDouble(o * inner + j);
                    long v = (long) raw;
                    if (v < 0) {
                        v += depth;
                    }
                    if (v >= 0 && v < depth) {
                        map[(o * d + (int) v) * inner + j] = 1;
                    }
                }
            }
            Object dst = ElementArrays.allocate(values.type(), n);
            ElementArrays.gather(values.data(), map, dst);
            return new Tensor[] {Tensor.of(values.type(), out, dst)};
        };
    }

    /**
     * Trilu: keeps the upper ({@code upper=1}) or lower triangle of the last two axes relative to diagonal
     * {@code k} (optional input), zeroing the rest.
     *
     * @param node the node
     * @return the kernel
     */
    static CpuKernel trilu(NodeView node) {
        boolean upper = node.intAttr("upper", 1) != 0;
        return (in, ctx) -> {
            Tensor x = in[0];
            Tensor kIn = Shapes.optional(in, 1);
            long k = kIn == null ? 0 : Shapes.scalar(kIn, "k");
            if (x.rank() < 2) {
                throw new InvalidArgumentException("Trilu needs rank 2 or more, got shape "
                        + Tensor.shapeString(x.shape()));
            }
            long rows = x.dim(x.rank() - 2);
            long cols = x.dim(x.rank() - 1);
            Object dst = ElementArrays.copyOf(x.data());
            int mats = rows * cols == 0 ? 0 : x.size() / (int) (rows * cols);
            for (int m = 0; m < mats; m++) {
                for (long i = 0; i < rows; i++) {
                    int rowStart = (int) ((m * rows + i) * cols);
                    // the first column on or above the diagonal i + k
                    long edge = Math.max(0, Math.min(cols, i + k));
                    if (upper) {
                        ElementArrays.clear(dst, rowStart, rowStart + (int) edge);
                    } else {
                        long keep = Math.max(0, Math.min(cols, i + k + 1));
                        ElementArrays.clear(dst, rowStart + (int) keep, rowStart + (int) cols);
                    }
                }
            }
            return new Tensor[] {Tensor.of(x.type(), x.shape(), dst)};
        };
    }
}
