/**
 * The compile cache (session option {@code ortex.compile_cache.dir}): compiled models stored under a key of what
 * determines their compilation, shared safely by threads and processes. Private to the runtime.
 */
package io.ortex.runtime.internal.cache;
