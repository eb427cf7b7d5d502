package io.ortex.serve.internal;

import java.util.Map;

/**
 * A request and its reply as the protocol handler sees them, free of the servlet API.
 */
public final class HttpExchange {
    private HttpExchange() {
    }

    /**
     * An HTTP request.
     *
     * @param method the method ({@code GET}, {@code POST}, ...)
     * @param path the request path as sent, still percent-encoded, without the query
     * @param headerLength the header {@code Inference-Header-Content-Length}, or null
     * @param body the body (empty for none)
     */
    public record Request(String method, String path, String headerLength, byte[] body) {
    }

    /**
     * An HTTP reply.
     *
     * @param status the status code
     * @param contentType the content type
     * @param body the body
     * @param headers further headers
     */
    public record Reply(int status, String contentType, byte[] body, Map<String, String> headers) {
        /**
         * Copies the headers.
         *
         * @param status the status code
         * @param contentType the content type
         * @param body the body
         * @param headers further headers
         */
        public Reply {
            headers = Map.copyOf(headers);
        }
    }
}
