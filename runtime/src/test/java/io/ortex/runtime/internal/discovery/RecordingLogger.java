package io.ortex.runtime.internal.discovery;

import java.util.ArrayList;
import java.util.List;
import org.slf4j.Marker;
import org.slf4j.event.Level;
import org.slf4j.helpers.LegacyAbstractLogger;
import org.slf4j.helpers.MessageFormatter;

/** An SLF4J logger that keeps every message, formatted, with its level, for assertions. */
final class RecordingLogger extends LegacyAbstractLogger {
    private static final long serialVersionUID = 1L;

    /** One logged message. */
    record Entry(Level level, String message) {
    }

    final List<Entry> entries = new ArrayList<>();

    RecordingLogger() {
        this.name = "recording";
    }

    @Override
    public boolean isTraceEnabled() {
        return true;
    }

    @Override
    public boolean isDebugEnabled() {
        return true;
    }

    @Override
    public boolean isInfoEnabled() {
        return true;
    }

    @Override
    public boolean isWarnEnabled() {
        return true;
    }

    @Override
    public boolean isErrorEnabled() {
        return true;
    }

    @Override
    protected String getFullyQualifiedCallerName() {
        return null;
    }

    @Override
    protected void handleNormalizedLoggingCall(Level level, Marker marker, String messagePattern, Object[] arguments,
                                               Throwable throwable) {
        entries.add(new Entry(level, MessageFormatter.basicArrayFormat(messagePattern, arguments)));
    }

    /** The messages logged at a level. */
    List<String> at(Level level) {
        return entries.stream().filter(e -> e.level() == level).map(Entry::message).toList();
    }
}
