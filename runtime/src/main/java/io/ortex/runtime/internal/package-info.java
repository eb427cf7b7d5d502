/**
 * The runtime's implementation, private to the bundle. By concern:
 * <ul>
 *   <li>The environment: {@link io.ortex.runtime.internal.RuntimeEnvironment} ({@code Environment}), created by
 *       {@link io.ortex.runtime.internal.RuntimeEnvironmentFactory}; hardware discovery is in {@code discovery}.</li>
 *   <li>EP libraries: {@link io.ortex.runtime.internal.EpRegistry} registers them (one
 *       {@link io.ortex.runtime.internal.EpLibrary} each, jars loaded by
 *       {@link io.ortex.runtime.internal.LibraryJar}) with the devices their factories offer and why an EP offers
 *       none ({@link io.ortex.runtime.internal.FactoryDevices}); {@link io.ortex.runtime.internal.DeviceListeners}
 *       hear devices come and go; {@link io.ortex.runtime.internal.LibraryInfos} shows them to tools.</li>
 *   <li>Leases and removal: {@link io.ortex.runtime.internal.LeaseTable} records which sessions
 *       ({@link io.ortex.runtime.internal.SessionLease}) hold which library; {@link
 *       io.ortex.runtime.internal.LibraryRemoval} is the one protocol by which a library goes (begin, drain, finish
 *       or abort); {@link io.ortex.runtime.internal.SessionMigrator} moves the sessions that asked for it onto the
 *       remaining EPs.</li>
 *   <li>Selection: {@link io.ortex.runtime.internal.EpSelector} applies explicit EPs, policies and delegates, giving
 *       {@link io.ortex.runtime.internal.EpBinding}s.</li>
 *   <li>Sessions: {@link io.ortex.runtime.internal.InferenceSession} ({@code Session}); {@link
 *       io.ortex.runtime.internal.SessionOptimization} runs the graph optimizer ({@code optimizer});
 *       {@link io.ortex.runtime.internal.SessionCompiler} creates the EPs ({@link
 * io.ortex.runtime.internal.EpInstance}),
 *       partitions the graph ({@link io.ortex.runtime.internal.Partitioner}), compiles each group through its view
 *       ({@link io.ortex.runtime.internal.GroupGraphView}, {@link io.ortex.runtime.internal.FusedNodeImpl}) and plans
 *       it ({@link io.ortex.runtime.internal.SessionPlan}, {@link io.ortex.runtime.internal.GraphPlan},
 *       {@link io.ortex.runtime.internal.ExecutionPlan}); runs use a {@link io.ortex.runtime.internal.RunArena} and
 *       the environment's {@link io.ortex.runtime.internal.IntraOpPools}, and may be recorded by a
 *       {@link io.ortex.runtime.internal.SessionProfiler}.</li>
 *   <li>Compiled models: {@link io.ortex.runtime.internal.RuntimeModelCompiler} ({@code ModelCompiler}) and
 *       EPContext writing and reading in {@code epcontext}; {@link io.ortex.runtime.internal.CachedCompilation} goes
 *       through the compile cache ({@code cache}).</li>
 * </ul>
 */
package io.ortex.runtime.internal;
