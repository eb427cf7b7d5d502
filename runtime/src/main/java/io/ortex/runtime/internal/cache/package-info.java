/**
 * The compile cache (session option {@code ortex.compile_cache.dir}): compiled models stored under a key of what
 * determines their compilation ({@link io.ortex.runtime.internal.cache.CacheKey}, the model files' hashes memoized by
 * {@link io.ortex.runtime.internal.cache.FileHashes}), without the weights their source model holds
 * ({@link io.ortex.runtime.internal.cache.SourceInitializers}), in a folder shared safely by threads and processes
 * ({@link io.ortex.runtime.internal.cache.CompileCache}). Private to the runtime.
 */
package io.ortex.runtime.internal.cache;
