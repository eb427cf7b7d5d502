/**
 * Test fixtures shared by the modules' tests, never shipped: {@link io.ortex.testing.RealModels} (real models from
 * Maven Central and the npm registry, pinned by sha256 and cached) and {@link io.ortex.testing.ConformanceSuite}
 * (ONNX's node conformance suite where it is present), {@link io.ortex.testing.BackendTestCase} (backend test cases
 * written as {@code ortex test} reads them).
 */
package io.ortex.testing;
