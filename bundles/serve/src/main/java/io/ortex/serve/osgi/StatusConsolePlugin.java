package io.ortex.serve.osgi;

import io.ortex.serve.internal.status.StatusHandler;
import java.io.IOException;
import java.io.PrintWriter;
import javax.servlet.Servlet;
import javax.servlet.http.HttpServlet;
import javax.servlet.http.HttpServletRequest;
import javax.servlet.http.HttpServletResponse;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;

/**
 * The status page as a Felix Web Console plugin, at {@code /system/console/ortex}: a plain servlet service with the
 * properties {@value #LABEL_PROPERTY} and {@value #TITLE_PROPERTY}, which Web Console picks up and wraps in its own
 * page; with no Web Console installed nothing uses it (the HTTP Whiteboard ignores it: it has no pattern), and the
 * bundle needs no Web Console class. The page's content is the status page's; {@code .../ortex/status.json} is its
 * JSON form, which its script reads to refresh.
 */
@Component(service = Servlet.class, property = {
    StatusConsolePlugin.LABEL_PROPERTY + "=" + StatusConsolePlugin.LABEL,
    StatusConsolePlugin.TITLE_PROPERTY + "=Ortex",
    "felix.webconsole.category=Ortex"
})
public final class StatusConsolePlugin extends HttpServlet {
    /** The Web Console property naming a plugin's path under the console. */
    static final String LABEL_PROPERTY = "felix.webconsole.label";
    /** The Web Console property giving a plugin's title in its menu. */
    static final String TITLE_PROPERTY = "felix.webconsole.title";
    /** This plugin's label: its path under the console. */
    static final String LABEL = "ortex";
    private static final long serialVersionUID = 1L;

    private final transient StatusHandler handler;

    /**
     * Creates the plugin.
     *
     * @param repository the repository component
     */
    @Activate
    public StatusConsolePlugin(@Reference RepositoryComponent repository) {
        this.handler = repository.status();
    }

    /** {@inheritDoc} */
    @Override
    protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws IOException {
        String uri = req.getRequestURI();
        if (uri.endsWith(StatusHandler.JSON)) {
            StatusServlet.write(handler.json(), resp, true);
            return;
        }
        // Web Console writes its header and menu before this content and its footer after it
        resp.setContentType("text/html; charset=utf-8");
        String base = uri.endsWith("/") ? uri.substring(0, uri.length() - 1) : uri;
        PrintWriter out = resp.getWriter();
        out.write(handler.fragment(base + StatusHandler.JSON));
        out.flush();
    }
}
