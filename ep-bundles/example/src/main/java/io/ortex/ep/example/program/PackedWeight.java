package io.ortex.ep.example.program;

import io.ortex.api.ElementType;
import io.ortex.api.Names;
import io.ortex.api.Tensor;
import java.util.Objects;

/**
 * A constant operand of a {@link Program}, read from the model's initializer once at compile time and stored in
 * the layout its instruction reads (for example a {@code MatMul} weight with its last two axes swapped). Holds a
 * float32 tensor; immutable and safe to share between threads.
 */
public final class PackedWeight {
    private final String name;
    private final Tensor value;

    /**
     * Creates the weight.
     *
     * @param name the initializer it was made from, with a suffix naming the packing (for messages and dumps)
     * @param value the packed value, float32; the weight takes it over
     */
    public PackedWeight(String name, Tensor value) {
        this.name = Objects.requireNonNull(name, "name");
        this.value = Objects.requireNonNull(value, "value");
        if (value.type() != ElementType.FLOAT) {
            throw new IllegalArgumentException("packed weight " + Names.quote(name) + " must be float32, not "
                    + value.type());
        }
    }

    /**
     * Gets the weight's name.
     *
     * @return the name
     */
    public String name() {
        return name;
    }

    /**
     * Gets the packed value; its array must not be modified.
     *
     * @return the tensor
     */
    public Tensor value() {
        return value;
    }

    @Override
    public String toString() {
        return name + " " + Tensor.shapeString(value.shape());
    }
}
