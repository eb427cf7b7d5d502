/**
 * The entry point of the {@code ortex} command line, {@link io.ortex.shell.Main}.
 */
package io.ortex.shell;
