/**
 * Test fixtures shared by the modules' tests, never shipped: models built with the protobuf classes
 * ({@link io.ortex.testing.ModelBuilder}, {@link io.ortex.testing.Attributes}, and for single operators
 * {@link io.ortex.testing.OneNodeModel} and {@link io.ortex.testing.OneNode}, run by the class path's
 * {@link io.ortex.testing.ModelRunner}); {@link io.ortex.testing.BackendTestCase} (backend test cases as
 * {@code ortex test} reads them); {@link io.ortex.testing.RealModels} (real models from Maven Central and the npm
 * registry, pinned by sha256 and cached); and {@link io.ortex.testing.ConformanceSuite} (ONNX's node conformance
 * suite where it is present).
 */
package io.ortex.testing;
