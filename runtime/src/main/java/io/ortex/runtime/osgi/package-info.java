/**
 * The runtime's OSGi wiring, private to the runtime bundle.
 *
 * <p>{@link io.ortex.runtime.osgi.EnvironmentComponent} is a Declarative Services component that registers the
 * {@link io.ortex.api.Environment} service and tracks every {@link io.ortex.api.spi.EpFactory} service in the
 * framework. The factories of one bundle form one EP library whose registration name is the bundle's symbolic name.
 * EP bundles register their factories with these service properties:
 * <ul>
 *   <li>{@code ep.name}: the EP name the factory reports ({@code EpFactory.name()});</li>
 *   <li>{@code ep.vendor}: the EP vendor;</li>
 *   <li>{@code ep.device_types}: the hardware device types it can offer devices for ({@code CPU}, {@code GPU},
 *       {@code NPU}), one value or several.</li>
 * </ul>
 * They describe the factory to tools and service filters without loading it; the runtime warns when they are missing
 * or disagree with the factory.
 *
 * <p>Removal with drain: when an {@code EpFactory} service is unregistered (bundle stop, update, uninstall), its
 * library's devices are hidden from selection at once ({@code EpDeviceListener.removed}), then the unregistering
 * thread blocks until every session holding the library has closed; the library is released and only then does
 * the unregistration go on, so the provider's {@code @Deactivate} runs after. At the configured drain limit the
 * configured outcome applies: {@code fail} (the holders fail: their next run throws
 * {@link io.ortex.api.EpUnavailableException}) or {@code wait} (keep waiting, logging the holders). The drain happens
 * in a service tracker, outside SCR's locks, so it is not bound by SCR's {@code ds.lock.timeout.milliseconds} (5 s):
 * other components and EP bundles keep working while a stop blocks (the integration tests hold one for 6 s). With
 * {@code wait}, a stop (and so a framework shutdown) can block for as long as a session stays open; {@code fail}
 * bounds it by the drain limit, which is why it is the default. Sessions created with
 * {@code ortex.session.migrate_on_ep_removal=1} ({@link io.ortex.api.SessionOptions#MIGRATE_ON_EP_REMOVAL}) are not
 * waited for: they are moved onto the remaining EPs between runs as soon as the removal begins.
 *
 * <p>EP libraries that are not bundles: {@link io.ortex.api.spi.EpLibraryLoader} services (the ONNX Runtime EP's loader
 * of native plugin-EP libraries) load the files {@code Environment.registerLibrary} gets that are not jars; when a
 * loader service goes away, the libraries it loaded are withdrawn with the same drain first. A library can also be
 * registered by configuration: each configuration of the factory PID {@code io.ortex.runtime.library} (keys
 * {@code path}, {@code name}; a file {@code io.ortex.runtime.library-NAME.cfg} in {@code deploy/}) registers one,
 * and deleting it withdraws it ({@link io.ortex.runtime.osgi.LibraryConfiguration}).
 *
 * <p>Configuration: PID {@code io.ortex.runtime}, keys in {@link io.ortex.runtime.osgi.RuntimeSettings}.
 */
package io.ortex.runtime.osgi;
