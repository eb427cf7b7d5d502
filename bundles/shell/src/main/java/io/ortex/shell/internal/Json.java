package io.ortex.shell.internal;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;

/** Writes the command line's JSON output with Jackson's streaming generator. */
public final class Json {
    private static final JsonFactory FACTORY = new JsonFactory();

    private Json() {
    }

    /** Writes a document. */
    @FunctionalInterface
    public interface Body {
        /**
         * Writes the document.
         *
         * @param g the generator
         * @throws IOException never for a string target
         */
        void write(JsonGenerator g) throws IOException;
    }

    /**
     * Renders one JSON document as a pretty-printed string.
     *
     * @param body what to write
     * @return the JSON text
     */
    public static String render(Body body) {
        StringWriter w = new StringWriter();
        try (JsonGenerator g = FACTORY.createGenerator(w)) {
            g.useDefaultPrettyPrinter();
            body.write(g);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return w.toString();
    }
}
