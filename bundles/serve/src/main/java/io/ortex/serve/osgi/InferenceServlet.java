package io.ortex.serve.osgi;

import io.ortex.serve.internal.HttpExchange;
import io.ortex.serve.internal.InferRequestDecoder;
import io.ortex.serve.internal.InferenceHandler;
import io.ortex.serve.internal.ProtocolException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.Map;
import javax.servlet.Servlet;
import javax.servlet.http.HttpServlet;
import javax.servlet.http.HttpServletRequest;
import javax.servlet.http.HttpServletResponse;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.http.whiteboard.propertytypes.HttpWhiteboardServletName;
import org.osgi.service.http.whiteboard.propertytypes.HttpWhiteboardServletPattern;

/**
 * The Open Inference Protocol's REST API and {@code /metrics} as a servlet on the HTTP Whiteboard. Thin: it reads
 * the body (refusing one over {@code max.request.bytes} with 413) and hands the request to the
 * {@link InferenceHandler}.
 */
@Component(service = Servlet.class)
@HttpWhiteboardServletPattern({"/v2/*", "/metrics"})
@HttpWhiteboardServletName("ortex-inference")
public final class InferenceServlet extends HttpServlet {
    private static final long serialVersionUID = 1L;

    private final transient InferenceHandler handler;
    /** The largest body read; larger ones get 413. */
    private final long maxRequestBytes;

    /**
     * Creates the servlet.
     *
     * @param repository the repository component
     */
    @Activate
    public InferenceServlet(@Reference RepositoryComponent repository) {
        ServeConfiguration config = repository.config();
        this.maxRequestBytes = Math.min(config.max_request_bytes(), Integer.MAX_VALUE - 8);
        this.handler = new InferenceHandler(repository.core(),
                new InferRequestDecoder(config.max_tensor_elements()));
    }

    /** {@inheritDoc} */
    @Override
    protected void service(HttpServletRequest req, HttpServletResponse resp) throws IOException {
        HttpExchange.Reply reply;
        byte[] body = readBody(req);
        if (body == null) {
            reply = handler.error(ProtocolException.TOO_LARGE, "the request body is larger than the limit of "
                    + maxRequestBytes + " bytes (max.request.bytes)");
        } else {
            reply = handler.handle(new HttpExchange.Request(req.getMethod(), req.getRequestURI(),
                    req.getHeader(InferenceHandler.HEADER_LENGTH), body));
        }
        resp.setStatus(reply.status());
        resp.setContentType(reply.contentType());
        for (Map.Entry<String, String> h : reply.headers().entrySet()) {
            resp.setHeader(h.getKey(), h.getValue());
        }
        resp.setContentLength(reply.body().length);
        try (OutputStream out = resp.getOutputStream()) {
            out.write(reply.body());
        }
    }

    /** Reads the body, or returns null when it is larger than the limit. */
    private byte[] readBody(HttpServletRequest req) throws IOException {
        long declared = req.getContentLengthLong();
        if (declared > maxRequestBytes) {
            return null;
        }
        try (InputStream in = req.getInputStream()) {
            byte[] body = in.readNBytes((int) maxRequestBytes + 1);
            return body.length > maxRequestBytes ? null : body;
        }
    }
}
