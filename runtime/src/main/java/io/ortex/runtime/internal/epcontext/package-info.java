/**
 * EPContext support (pre-compiled models): reading EPContext nodes and their payloads back for the EP that claims
 * them, checking the compatibility strings a compiled model stores, and writing a compiled model in which each
 * partition an EP compiled is an {@code EPContext} node (session option {@code ep.context_enable=1} and the compile
 * API). Private to the runtime.
 */
package io.ortex.runtime.internal.epcontext;
