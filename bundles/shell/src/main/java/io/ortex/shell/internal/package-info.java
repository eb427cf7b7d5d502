/**
 * The commands behind the command line: each verb is a class that takes parsed options and an output stream, so
 * the command line and the shell call the same code.
 */
package io.ortex.shell.internal;
