package io.ortex.shell.internal;

import io.ortex.api.ErrorCode;
import io.ortex.api.Names;
import io.ortex.api.OrtexException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.util.EnumSet;
import java.util.Set;
import java.util.concurrent.Callable;

/**
 * How every command, on the command line and in the shell, reports a failure: one line on the error stream starting
 * with {@code ortex: }, the stack trace only when asked, and the exit status (0 success, 1 the job failed, 2 bad usage
 * or bad input).
 */
public final class Failures {
    /** The error codes that mean the input was bad rather than that the job failed. */
    private static final Set<ErrorCode> BAD_INPUT = EnumSet.of(ErrorCode.INVALID_ARGUMENT, ErrorCode.NO_SUCH_FILE,
            ErrorCode.INVALID_PROTOBUF, ErrorCode.INVALID_GRAPH, ErrorCode.NOT_IMPLEMENTED);

    private Failures() {
    }

    /**
     * Runs a command and turns what it throws into the one-line error and the exit status.
     *
     * @param verbose whether to print stack traces after the line
     * @param err where the error line goes
     * @param command the command, returning its exit status
     * @return the command's status, or the status of its failure
     */
    public static int guard(boolean verbose, PrintStream err, Callable<Integer> command) {
        try {
            return command.call();
        } catch (UsageException e) {
            err.println("ortex: " + Names.oneLine(e.getMessage()));
            return 2;
        } catch (OrtexException e) {
            err.println("ortex: " + Names.oneLine(e.getMessage()));
            trace(verbose, err, e);
            return BAD_INPUT.contains(e.code()) ? 2 : 1;
        } catch (UncheckedIOException e) {
            err.println("ortex: " + Names.oneLine(e.getCause().getMessage()));
            trace(verbose, err, e);
            return 1;
        } catch (Exception | OutOfMemoryError | StackOverflowError e) {
            err.println("ortex: internal error: " + Names.oneLine(String.valueOf(e))
                    + (verbose ? "" : " (--verbose shows where)"));
            trace(verbose, err, e);
            return 1;
        }
    }

    private static void trace(boolean verbose, PrintStream err, Throwable e) {
        if (verbose) {
            e.printStackTrace(err);
        }
    }
}
