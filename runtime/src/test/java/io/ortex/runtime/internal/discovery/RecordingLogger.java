package io.ortex.runtime.internal.discovery;

import java.text.MessageFormat;
import java.util.ArrayList;
import java.util.List;
import java.util.ResourceBundle;

/** A {@link System.Logger} that keeps every message with its level, for assertions. */
final class RecordingLogger implements System.Logger {
    /** One logged message. */
    record Entry(Level level, String message) {
    }

    final List<Entry> entries = new ArrayList<>();

    @Override
    public String getName() {
        return "recording";
    }

    @Override
    public boolean isLoggable(Level level) {
        return true;
    }

    @Override
    public void log(Level level, ResourceBundle bundle, String msg, Throwable thrown) {
        entries.add(new Entry(level, msg));
    }

    @Override
    public void log(Level level, ResourceBundle bundle, String format, Object... params) {
        entries.add(new Entry(level, params == null || params.length == 0 ? format
                : MessageFormat.format(format, params)));
    }

    /** The messages logged at a level. */
    List<String> at(Level level) {
        return entries.stream().filter(e -> e.level() == level).map(Entry::message).toList();
    }
}
