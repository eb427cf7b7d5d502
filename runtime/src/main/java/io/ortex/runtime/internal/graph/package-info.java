/**
 * Graph algorithms the runtime's layers share (the optimizer, the EPContext writer, the execution planner). Private
 * to the runtime.
 */
package io.ortex.runtime.internal.graph;
