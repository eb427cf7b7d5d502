package io.ortex.api.spi;

/** The type of a node attribute, as in ONNX's {@code AttributeProto.AttributeType}. */
public enum AttributeType {
    /** One float. */
    FLOAT,
    /** One integer. */
    INT,
    /** One string. */
    STRING,
    /** One tensor. */
    TENSOR,
    /** One graph. */
    GRAPH,
    /** A list of floats. */
    FLOATS,
    /** A list of integers. */
    INTS,
    /** A list of strings. */
    STRINGS,
    /** A list of tensors. */
    TENSORS,
    /** A list of graphs. */
    GRAPHS
}
