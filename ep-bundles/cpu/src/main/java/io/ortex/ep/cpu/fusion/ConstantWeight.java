package io.ortex.ep.cpu.fusion;

import io.ortex.api.ElementType;
import io.ortex.api.Tensor;
import io.ortex.api.TensorInfo;
import io.ortex.api.spi.ValueView;
import java.util.Arrays;

/**
 * A constant float32 initializer that a matcher knows by its shape, so that finding a fusion (which the partitioner
 * does once to claim nodes and again to compile them) decodes no weight: the data is decoded when the kernel is built.
 * A model whose declared shape differs from its data is found out then, and the kernel declines.
 */
final class ConstantWeight {
    private final ValueView value;
    private final long[] shape;
    private final Tensor decoded;

    private ConstantWeight(ValueView value, long[] shape, Tensor decoded) {
        this.value = value;
        this.shape = shape;
        this.decoded = decoded;
    }

    /**
     * Finds a constant float32 initializer: by its declared static shape when it has one, else by decoding it.
     *
     * @param v the value, or {@code null}
     * @return the weight, or {@code null} when {@code v} is no constant float32 initializer
     */
    static ConstantWeight of(ValueView v) {
        if (v == null || !v.isConstantInitializer()) {
            return null;
        }
        TensorInfo info = v.typeInfo().orElse(null);
        if (info != null && info.type() == ElementType.FLOAT && info.hasShape()
                && Arrays.stream(info.dims()).allMatch(d -> d >= 0)) {
            return new ConstantWeight(v, info.dims(), null);
        }
        Tensor t = Pattern.constantFloats(v).orElse(null);
        return t == null ? null : new ConstantWeight(v, t.shape(), t);
    }

    /** Gets the number of dimensions. */
    int rank() {
        return shape.length;
    }

    /** Gets one dimension. */
    long dim(int i) {
        return shape[i];
    }

    /** Gets the number of elements. */
    long size() {
        long n = 1;
        for (long d : shape) {
            n *= d;
        }
        return n;
    }

    /**
     * Decodes the data; not kept, so that what a kernel makes of it is all that stays in memory.
     *
     * @return the tensor, or {@code null} when the data is not float32 of the shape the model declares
     */
    Tensor decode() {
        if (decoded != null) {
            return decoded;
        }
        Tensor t = value.initializer().orElse(null);
        return t == null || t.type() != ElementType.FLOAT || !Arrays.equals(t.shape(), shape) ? null : t;
    }
}
