package io.ortex.api;

/**
 * Which execution provider runs one node of a session's model.
 *
 * @param node the node's name (generated as {@code <op>_<index>} when the model leaves it empty)
 * @param opType the node's operator type
 * @param ep the name of the EP that runs it
 * @param partition the name of the compiled partition (fused node) that holds it
 */
public record NodeAssignment(String node, String opType, String ep, String partition) {
}
