package io.ortex.shell.internal;

import io.ortex.api.EpDevice;
import io.ortex.api.Environment;
import io.ortex.api.HardwareDevice;
import java.io.PrintStream;
import java.util.Map;
import java.util.Set;

/** {@code ortex devices} and {@code ortex eps}: the hardware devices, and the EP devices with their state. */
public final class DeviceCommands {
    /** The flags of these verbs. */
    public static final Set<String> FLAGS = Set.of("--json", "--verbose");
    /** The valued options of these verbs. */
    public static final Set<String> VALUED = SessionSettings.ENVIRONMENT;

    private DeviceCommands() {
    }

    /**
     * Lists hardware devices: those of this machine and configuration, then the virtual devices EPs offer.
     *
     * @param o the parsed options
     * @param out where the list goes
     * @return 0
     */
    public static int devices(Options o, PrintStream out) {
        try (Environment env = SessionSettings.environment(o)) {
            java.util.List<HardwareDevice> all = new java.util.ArrayList<>(env.hardwareDevices());
            for (EpDevice d : env.epDevices()) {
                if (d.device().isVirtual() && !all.contains(d.device())) {
                    all.add(d.device());
                }
            }
            if (o.has("--json")) {
                out.println(Json.render(g -> {
                    g.writeStartArray();
                    for (HardwareDevice d : all) {
                        g.writeStartObject();
                        g.writeStringField("type", d.type().name());
                        g.writeBooleanField("virtual", d.isVirtual());
                        g.writeStringField("vendor", d.vendor());
                        g.writeNumberField("vendor_id", d.vendorId());
                        g.writeNumberField("device_id", d.deviceId());
                        writeMap(g, "metadata", d.metadata());
                        g.writeEndObject();
                    }
                    g.writeEndArray();
                }));
                return 0;
            }
            out.printf("%-4s %-14s %-9s %-9s %-7s %s%n", "TYPE", "VENDOR", "VENDOR_ID", "DEVICE_ID", "VIRTUAL",
                    "METADATA");
            for (HardwareDevice d : all) {
                out.printf("%-4s %-14s 0x%04x    0x%04x    %-7s %s%n", d.type(), d.vendor(), d.vendorId(),
                        d.deviceId(), d.isVirtual() ? "yes" : "no", d.metadata());
            }
        }
        return 0;
    }

    /**
     * Lists EP devices.
     *
     * @param o the parsed options
     * @param out where the list goes
     * @return 0
     */
    public static int eps(Options o, PrintStream out) {
        try (Environment env = SessionSettings.environment(o)) {
            if (o.has("--json")) {
                out.println(Json.render(g -> {
                    g.writeStartArray();
                    for (EpDevice d : env.epDevices()) {
                        g.writeStartObject();
                        g.writeStringField("ep", d.epName());
                        g.writeStringField("vendor", d.epVendor());
                        g.writeStringField("device_type", d.device().type().name());
                        g.writeStringField("device_vendor", d.device().vendor());
                        g.writeBooleanField("virtual", d.device().isVirtual());
                        g.writeStringField("version", d.version());
                        g.writeStringField("state", "ACTIVE");
                        writeMap(g, "ep_metadata", d.epMetadata());
                        writeMap(g, "ep_options", d.epOptions());
                        writeMap(g, "device_metadata", d.device().metadata());
                        g.writeEndObject();
                    }
                    g.writeEndArray();
                }));
                return 0;
            }
            out.printf("%-28s %-14s %-4s %-7s %-8s %-6s %s%n", "EP", "VENDOR", "TYPE", "VIRTUAL", "VERSION",
                    "STATE", "DEVICE");
            for (EpDevice d : env.epDevices()) {
                out.printf("%-28s %-14s %-4s %-7s %-8s %-6s %s%n", d.epName(), d.epVendor(), d.device().type(),
                        d.device().isVirtual() ? "yes" : "no", d.version(), "ACTIVE", d.device().vendor());
                Map<String, String> meta = new java.util.TreeMap<>(d.epMetadata());
                meta.remove(EpDevice.VERSION);
                if (!meta.isEmpty() || !d.epOptions().isEmpty()) {
                    out.printf("    metadata %s options %s%n", meta, d.epOptions());
                }
            }
        }
        return 0;
    }

    private static void writeMap(com.fasterxml.jackson.core.JsonGenerator g, String field, Map<String, String> map)
            throws java.io.IOException {
        g.writeObjectFieldStart(field);
        for (Map.Entry<String, String> e : map.entrySet()) {
            g.writeStringField(e.getKey(), e.getValue());
        }
        g.writeEndObject();
    }
}
