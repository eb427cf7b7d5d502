/**
 * The shell in an OSGi framework: Declarative Services components that publish the Gogo commands {@code ortex:*}
 * and the {@link io.ortex.shell.CommandLine} service the distribution's launcher calls. They are thin: each parses
 * nothing itself and calls the same verb classes as the command line ({@code io.ortex.shell.internal}) with the
 * framework's {@code Environment} service. Private to the bundle; nothing here is loaded on the module path.
 */
package io.ortex.shell.osgi;
