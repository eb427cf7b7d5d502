package io.ortex.serve.internal;

import io.ortex.api.Names;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Splits a request path into its percent-decoded segments, strictly: a malformed escape or bytes that are not UTF-8
 * are refused, so that a decoded name is exactly what the client meant.
 */
final class PathSegments {
    private PathSegments() {
    }

    /**
     * Parses a path.
     *
     * @param path the path as sent, such as {@code /v2/models/my%20model/infer}
     * @return its segments, decoded, without empty ones at the ends
     * @throws ProtocolException (400) for malformed escapes, (404) for empty segments inside
     */
    static List<String> parse(String path) {
        String p = path.startsWith("/") ? path.substring(1) : path;
        if (p.endsWith("/")) {
            p = p.substring(0, p.length() - 1);
        }
        List<String> segments = new ArrayList<>();
        if (p.isEmpty()) {
            return segments;
        }
        for (String raw : p.split("/", -1)) {
            if (raw.isEmpty()) {
                throw new ProtocolException(ProtocolException.NOT_FOUND, "no route " + Names.quote(path)
                        + " (empty path segment)");
            }
            segments.add(decode(raw, path));
        }
        return segments;
    }

    private static String decode(String raw, String path) {
        if (raw.indexOf('%') < 0) {
            return raw;
        }
        ByteBuffer bytes = ByteBuffer.allocate(raw.length());
        for (int i = 0; i < raw.length(); i++) {
            char c = raw.charAt(i);
            if (c == '%') {
                int hi = i + 2 < raw.length() ? Character.digit(raw.charAt(i + 1), 16) : -1;
                int lo = i + 2 < raw.length() ? Character.digit(raw.charAt(i + 2), 16) : -1;
                if (hi < 0 || lo < 0) {
                    throw ProtocolException.badRequest("malformed percent escape in the path " + Names.quote(path));
                }
                bytes.put((byte) (hi * 16 + lo));
                i += 2;
            } else if (c < 0x80) {
                bytes.put((byte) c);
            } else {
                throw ProtocolException.badRequest("the path " + Names.quote(path) + " holds a character that is "
                        + "not percent-encoded");
            }
        }
        bytes.flip();
        try {
            return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(bytes).toString();
        } catch (CharacterCodingException e) {
            throw ProtocolException.badRequest("the path " + Names.quote(path) + " is not UTF-8 once decoded");
        }
    }
}
