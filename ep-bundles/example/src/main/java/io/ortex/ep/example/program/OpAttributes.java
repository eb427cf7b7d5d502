package io.ortex.ep.example.program;

/**
 * The attributes of one {@link Instruction}, already validated and with defaults filled in. Every implementation is
 * a record of primitives and primitive arrays, so that a program can be written to bytes field by field.
 */
public sealed interface OpAttributes permits OpAttributes.None, MatMulAttributes, GemmAttributes, ConvAttributes {
    /** The attributes of the operations that have none ({@code Add}, {@code Mul}, {@code Relu}). */
    None NONE = new None();

    /** No attributes. */
    record None() implements OpAttributes {
    }
}
