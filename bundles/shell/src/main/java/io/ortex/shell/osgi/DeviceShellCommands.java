package io.ortex.shell.osgi;

import io.ortex.api.Environment;
import org.apache.felix.service.command.Descriptor;
import org.apache.felix.service.command.Parameter;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;

/** The Gogo commands {@code ortex:devices} and {@code ortex:eps}. Immediate, so that Gogo calls one instance. */
@Component(service = DeviceShellCommands.class, immediate = true, property = {
    "osgi.command.scope=ortex",
    "osgi.command.function=devices",
    "osgi.command.function=eps"
})
public final class DeviceShellCommands {
    private final Environment environment;

    /**
     * Creates the component.
     *
     * @param environment the runtime's Environment service
     */
    @Activate
    public DeviceShellCommands(@Reference Environment environment) {
        this.environment = environment;
    }

    /**
     * Lists the hardware devices and the virtual devices EPs offer.
     *
     * @param json whether to print JSON
     */
    @Descriptor("lists the hardware devices, then the virtual devices EPs offer")
    public void devices(@Descriptor("print JSON") @Parameter(names = "--json", presentValue = "true",
            absentValue = "false") boolean json) {
        Verbs.shell(environment, "devices", json ? new String[] {"--json"} : new String[0]);
    }

    /**
     * Lists the EP devices with state and holders.
     *
     * @param json whether to print JSON
     */
    @Descriptor("lists the EP devices: name, vendor, device type, virtual, version, state (ACTIVE or DRAINING) and "
            + "the sessions holding the EP; then the EPs that offer no device, with why")
    public void eps(@Descriptor("print JSON") @Parameter(names = "--json", presentValue = "true",
            absentValue = "false") boolean json) {
        Verbs.shell(environment, "eps", json ? new String[] {"--json"} : new String[0]);
    }
}
