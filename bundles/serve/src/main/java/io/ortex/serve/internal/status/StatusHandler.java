package io.ortex.serve.internal.status;

import io.ortex.serve.internal.HttpExchange;
import java.nio.charset.StandardCharsets;
import java.util.Map;

/**
 * Routes the status page's requests, free of the servlet API: {@code GET /} redirects to {@code /status}, the HTML
 * page; {@code GET /status.json} is its JSON form. Thread safe.
 */
public final class StatusHandler {
    /** The page's path. */
    public static final String PAGE = "/status";
    /** The JSON form's path. */
    public static final String JSON = "/status.json";
    private static final Map<String, String> NO_CACHE = Map.of("Cache-Control", "no-store");

    private final StatusCollector collector;

    /**
     * Creates the handler.
     *
     * @param collector where the status is read
     */
    public StatusHandler(StatusCollector collector) {
        this.collector = collector;
    }

    /**
     * Answers one request.
     *
     * @param method the HTTP method
     * @param path the request path, without the query
     * @return the reply
     */
    public HttpExchange.Reply handle(String method, String path) {
        if (!method.equals("GET") && !method.equals("HEAD")) {
            return text(405, "the status page answers GET only", Map.of("Allow", "GET, HEAD"));
        }
        return switch (path) {
            case "", "/" -> new HttpExchange.Reply(302, "text/plain; charset=utf-8",
                    "see /status".getBytes(StandardCharsets.UTF_8), Map.of("Location", PAGE));
            case PAGE -> new HttpExchange.Reply(200, "text/html; charset=utf-8",
                    StatusPage.page(collector.snapshot(), JSON).getBytes(StandardCharsets.UTF_8), NO_CACHE);
            case JSON -> json();
            default -> text(404, "nothing at this path; the status page is at " + PAGE, Map.of());
        };
    }

    /**
     * Writes the status as JSON.
     *
     * @return the reply
     */
    public HttpExchange.Reply json() {
        return new HttpExchange.Reply(200, "application/json", StatusJson.write(collector.snapshot(false)),
                NO_CACHE);
    }

    /**
     * Writes the status as an HTML fragment for a page of another application (Felix Web Console).
     *
     * @param jsonUrl where the fragment's script reads the JSON form
     * @return the fragment
     */
    public String fragment(String jsonUrl) {
        return StatusPage.fragment(collector.snapshot(), jsonUrl, false);
    }

    private static HttpExchange.Reply text(int status, String message, Map<String, String> headers) {
        return new HttpExchange.Reply(status, "text/plain; charset=utf-8", message.getBytes(StandardCharsets.UTF_8),
                headers);
    }
}
