package io.ortex.serve.osgi;

import io.ortex.api.Names;
import io.ortex.serve.internal.ModelRepository;
import io.ortex.serve.internal.ModelTable;
import io.ortex.serve.internal.ProtocolException;
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
    @Descriptor("lists the served models, one line per loaded version: name, version, state (READY, DRAINING: "
            + "replaced or unloaded, answering its last requests; UNAVAILABLE, UNLOADED), requests queued for "
            + "dynamic batching, requests in flight (queued or running), EPs, and why a model is not ready")
    public String models() {
        ModelRepository r = repository.repository();
        return ModelTable.format(r.root(), r.versions());
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
