/**
 * The ONNX Runtime execution provider and the bridge to ONNX Runtime's native plugin-EP libraries. Private to the
 * bundle; nothing depends on it.
 * <dl>
 *   <dt>{@link io.ortex.ep.ort.OrtEpFactory}: the EP {@code OrtExecutionProvider}</dt>
 *   <dd>Its devices are ONNX Runtime's EP devices of its built-in EPs ({@code OrtDevices}), its version ONNX
 *       Runtime's. Each EP instance ({@code OrtExecutionProvider}) plans convex groups of the nodes ONNX Runtime
 *       may run ({@code GroupPlanner}, {@code OrtOpsets}, {@code ElementTypes}), tries each on ONNX Runtime
 *       ({@code PartitionProbe}) and compiles each into one ONNX Runtime session ({@code SessionMaker}) run by an
 *       {@code OrtKernel} that moves tensors with one copy each way ({@code TensorBridge}). EP options become
 *       session options ({@code OrtSettings}); compiled partitions are saved as ONNX Runtime's optimized models with
 *       a compatibility string ({@code CompatibilityInfo}).</dd>
 *   <dt>{@link io.ortex.ep.ort.PluginLibraryLoader}: native plugin-EP libraries</dt>
 *   <dd>Registers a {@code .so} with ONNX Runtime and offers each EP it adds as an Ortex EP
 *       ({@code PluginEpFactory}); the library ({@code PluginLibrary}) is unregistered from ONNX Runtime only after
 *       the last session using its devices closed.</dd>
 * </dl>
 * ONNX Runtime's process-wide environment is reached in one place, {@code OrtRuntime}; its classes and native library
 * come from the module or bundle {@code com.microsoft.onnxruntime}, loaded once per JVM.
 */
package io.ortex.ep.ort;
