package io.ortex.api;

import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * The declared name, element type and shape of a model input or output. A dimension is {@code -1} when it is
 * symbolic or unknown; {@link #dimNames()} then holds its symbol, if any.
 */
public final class TensorInfo {
    private final String name;
    private final ElementType type;
    private final long[] dims;
    private final List<String> dimNames;

    /**
     * Creates the description.
     *
     * @param name the value's name
     * @param type the element type, or {@code null} when the model does not say
     * @param dims the dimensions, {@code -1} for unknown ones, or {@code null} when the rank is unknown
     * @param dimNames a symbol per dimension ({@code ""} when none), or {@code null} when the rank is unknown
     */
    public TensorInfo(String name, ElementType type, long[] dims, List<String> dimNames) {
        this.name = Objects.requireNonNull(name, "name");
        this.type = type;
        this.dims = dims == null ? null : dims.clone();
        this.dimNames = dimNames == null ? null : List.copyOf(dimNames);
    }

    /**
     * Gets the value's name.
     *
     * @return the name
     */
    public String name() {
        return name;
    }

    /**
     * Gets the element type.
     *
     * @return the element type, or {@code null} when the model does not declare it
     */
    public ElementType type() {
        return type;
    }

    /**
     * Tells whether the model declares the rank.
     *
     * @return true when {@link #dims()} is known
     */
    public boolean hasShape() {
        return dims != null;
    }

    /**
     * Gets a copy of the dimensions, {@code -1} for symbolic or unknown ones.
     *
     * @return the dimensions, or {@code null} when the rank is unknown
     */
    public long[] dims() {
        return dims == null ? null : dims.clone();
    }

    /**
     * Gets the symbolic names of the dimensions.
     *
     * @return one entry per dimension ({@code ""} when none), or {@code null} when the rank is unknown
     */
    public List<String> dimNames() {
        return dimNames;
    }

    /** Gives {@code name: type[d0,d1,...]} with symbols for symbolic dimensions. */
    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder(name).append(": ").append(type == null ? "?" : type.displayName());
        if (dims == null) {
            return sb.append("[?]").toString();
        }
        sb.append('[');
        for (int i = 0; i < dims.length; i++) {
            if (i > 0) {
                sb.append(',');
            }
            sb.append(dims[i] >= 0 ? Long.toString(dims[i]) : dimNames.get(i).isEmpty() ? "?" : dimNames.get(i));
        }
        return sb.append(']').toString();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof TensorInfo t && name.equals(t.name) && type == t.type && Arrays.equals(dims, t.dims)
                && Objects.equals(dimNames, t.dimNames);
    }

    @Override
    public int hashCode() {
        return Objects.hash(name, type, Arrays.hashCode(dims), dimNames);
    }
}
