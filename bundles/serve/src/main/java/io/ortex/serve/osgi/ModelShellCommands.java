package io.ortex.serve.osgi;

import io.ortex.api.Names;
import io.ortex.serve.internal.ModelRepository;
import io.ortex.serve.internal.ProtocolException;
import java.util.List;
import org.apache.felix.service.command.Descriptor;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;

/** The Gogo commands {@code ortex:models}, {@code ortex:load} and {@code ortex:unload} over the model repository. */
@Component(service = ModelShellCommands.class, immediate = true, property = {
    "osgi.command.scope=ortex",
    "osgi.command.function=models",
    "osgi.command.function=load",
    "osgi.command.function=unload"
})
public final class ModelShellCommands {
    private final RepositoryComponent repository;

    /**
     * Creates the component.
     *
     * @param repository the repository component
     */
    @Activate
    public ModelShellCommands(@Reference RepositoryComponent repository) {
        this.repository = repository;
    }

    /**
     * Lists the models of the repository.
     *
     * @return the table
     */
    @Descriptor("lists the served models: name, version, state (READY, UNAVAILABLE, UNLOADED), requests running, "
            + "EPs, and why a model is not ready")
    public String models() {
        ModelRepository r = repository.repository();
        List<ModelRepository.Entry> entries = r.index();
        StringBuilder sb = new StringBuilder("models in ").append(r.root()).append('\n');
        if (entries.isEmpty()) {
            return sb.append("(none)").toString();
        }
        String format = "%-28s %-8s %-12s %-8s %s%n";
        sb.append(String.format(format, "NAME", "VERSION", "STATE", "RUNNING", "EPS / REASON"));
        for (ModelRepository.Entry e : entries) {
            String detail = e.state().equals("READY") ? String.join(", ", e.executionProviders()) : e.reason();
            sb.append(String.format(format, Names.escape(e.name()), e.version(), e.state(), e.inFlight(),
                    Names.oneLine(detail)));
        }
        return sb.toString().stripTrailing();
    }

    /**
     * Loads a model now.
     *
     * @param name the model's folder name
     * @return what happened
     */
    @Descriptor("loads a model of the models folder now (also one unloaded before)")
    public String load(@Descriptor("the model's folder name") String name) {
        try {
            repository.repository().load(name);
            return "model " + Names.quote(name) + " loaded";
        } catch (ProtocolException e) {
            return "ortex: " + e.getMessage();
        }
    }

    /**
     * Unloads a model.
     *
     * @param name the model's name
     * @return what happened
     */
    @Descriptor("unloads a model after its running requests; it stays unloaded until ortex:load")
    public String unload(@Descriptor("the model's name") String name) {
        try {
            repository.repository().unload(name);
            return "model " + Names.quote(name) + " unloaded";
        } catch (ProtocolException e) {
            return "ortex: " + e.getMessage();
        }
    }
}
