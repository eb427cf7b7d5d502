/**
 * EPContext support (pre-compiled models): reading EPContext nodes and their payloads back for the EP that claims
 * them, checking the compatibility strings a compiled model stores, and writing a compiled model in which each
 * partition an EP compiled is an {@code EPContext} node (session option {@code ep.context_enable=1} and the compile
 * API). Private to the runtime.
 *
 * <h2>Where payloads live</h2>
 * <ul>
 *   <li>{@code ep.context_embed_mode=1}: each node carries its own payload in {@code ep_cache_context}, with
 *       {@code main_context=1}.</li>
 *   <li>{@code ep.context_embed_mode=0} (the default): one context binary per EP beside the model,
 *       {@code <model>_<EP>.bin} ({@link io.ortex.runtime.internal.epcontext.ContextBinaryFile}). The EP's first
 *       EPContext node has {@code main_context=1} and names the file, by a path relative to the model's folder, in
 *       {@code ep_cache_context}; the EP's other nodes have {@code main_context=0}, no {@code ep_cache_context}, and
 *       take their payload from the main node's binary under their {@code partition_name}. Loading finds the main
 *       node among the model's EPContext nodes with the same {@code source}
 *       ({@link io.ortex.runtime.internal.epcontext.MainContextResolver}).</li>
 *   <li>{@code ep.share_ep_contexts=1} with embed mode 0: payloads, and the shared blobs they refer to, go into the
 *       shared context binary of the sharing group
 *       ({@link io.ortex.runtime.internal.epcontext.SharedContextFile}), each node naming that file and its entry's
 *       key ({@code context_key}); the group's first node has {@code main_context=1}.</li>
 * </ul>
 *
 * <h2>Context binary layout ({@code <model>_<EP>.bin})</h2>
 * All numbers little-endian:
 * <ol>
 *   <li>magic {@code i32} {@code 0x4243584F} (the bytes {@code OXCB}) and format {@code i32} (1);</li>
 *   <li>entry count {@code i32} and index length in bytes {@code i32};</li>
 *   <li>the index, one record per partition: name length {@code i32} and the name's UTF-8 bytes (the partition
 *       name, {@code ep.context_node_name_prefix} included, so that compiled models can be merged), payload offset
 *       from the start of the file {@code i64}, payload length {@code i64}, payload CRC-32C {@code i32};</li>
 *   <li>the CRC-32C {@code i32} of the header and index;</li>
 *   <li>the payloads, in index order, without padding.</li>
 * </ol>
 * Every file (binaries first, model last) is written to a temporary name and moved into place.
 */
package io.ortex.runtime.internal.epcontext;
