/**
 * The application side of Ortex: environments, sessions, session options and tensors.
 *
 * <p>An application obtains an {@link io.ortex.api.Environment} (from the OSGi service registry, or with
 * {@link io.ortex.api.Environment#create()} when no framework is present), creates a
 * {@link io.ortex.api.Session} for a model and calls {@link io.ortex.api.Session#run(java.util.Map)}.
 */
@org.osgi.annotation.bundle.Export
@org.osgi.annotation.versioning.Version("0.8.0")
package io.ortex.api;
