package io.ortex.serve.osgi;

import io.ortex.serve.internal.HttpExchange;
import io.ortex.serve.internal.status.StatusHandler;
import java.io.IOException;
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
 * The status page on the HTTP Whiteboard: {@code /status} (HTML), {@code /status.json}, and {@code /} redirecting to
 * the page (other paths no servlet serves get 404). Thin: it hands the request to the {@link StatusHandler}.
 */
@Component(service = Servlet.class)
@HttpWhiteboardServletPattern({StatusHandler.PAGE, StatusHandler.JSON, "/"})
@HttpWhiteboardServletName("ortex-status")
public final class StatusServlet extends HttpServlet {
    private static final long serialVersionUID = 1L;

    private final transient StatusHandler handler;

    /**
     * Creates the servlet.
     *
     * @param repository the repository component
     */
    @Activate
    public StatusServlet(@Reference RepositoryComponent repository) {
        this.handler = repository.status();
    }

    /** {@inheritDoc} */
    @Override
    protected void service(HttpServletRequest req, HttpServletResponse resp) throws IOException {
        String path = req.getServletPath() + (req.getPathInfo() == null ? "" : req.getPathInfo());
        write(handler.handle(req.getMethod(), path), resp, !req.getMethod().equals("HEAD"));
    }

    /** Writes a reply to the servlet response. */
    static void write(HttpExchange.Reply reply, HttpServletResponse resp, boolean body) throws IOException {
        resp.setStatus(reply.status());
        resp.setContentType(reply.contentType());
        for (Map.Entry<String, String> h : reply.headers().entrySet()) {
            resp.setHeader(h.getKey(), h.getValue());
        }
        resp.setContentLength(reply.body().length);
        if (body) {
            try (OutputStream out = resp.getOutputStream()) {
                out.write(reply.body());
            }
        }
    }
}
