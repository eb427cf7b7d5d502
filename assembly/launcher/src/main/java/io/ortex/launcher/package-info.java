/**
 * The distribution's launcher: {@link io.ortex.launcher.Launcher} starts Felix with the bundles of {@code bundle/},
 * FileInstall watching {@code deploy/} and {@code conf/}, and then either the Gogo shell or one command-line verb.
 * It runs on the application class path ({@code lib/}), outside the framework.
 */
package io.ortex.launcher;
