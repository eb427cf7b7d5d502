package io.ortex.shell.internal;

import com.fasterxml.jackson.core.JsonGenerator;
import io.ortex.api.EpDevice;
import io.ortex.api.Environment;
import io.ortex.api.HardwareDevice;
import java.io.IOException;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
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
            List<HardwareDevice> all = allDevices(env);
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
                out.printf("%-4s %-14s 0x%04x    0x%04x    %-7s %s%n", d.type(), Table.fit(d.vendor(), 14),
                        d.vendorId(), d.deviceId(), d.isVirtual() ? "yes" : "no",
                        Table.fit(d.metadata().toString(), 52));
            }
            out.println();
            out.printf("JVM      %s %s (%s)%n", System.getProperty("java.vm.vendor"),
                    System.getProperty("java.runtime.version"), System.getProperty("java.home"));
            for (EpDevice d : env.epDevices()) {
                String kernels = d.epMetadata().get("kernels");
                if (kernels != null) {
                    out.printf("%-8s %s%n", "CPU EP", kernels);
                    break;
                }
            }
        }
        return 0;
    }

    /**
     * Lists EP devices: the selectable ones in ONNX Runtime's order, then those of libraries being removed, each with
     * its state ({@code ACTIVE} or {@code DRAINING}) and the sessions holding its EP; then every EP of a library that
     * offers no device, with why (its virtual devices are not granted, no hardware found is one it supports, or its
     * factory failed), so that no EP library is left out.
     *
     * @param o the parsed options
     * @param out where the list goes
     * @return 0
     */
    public static int eps(Options o, PrintStream out) {
        try (Environment env = SessionSettings.environment(o)) {
            List<EpRow> rows = EpRow.of(env);
            List<Incompatibility> notOffered = o.has("--verbose") ? Incompatibility.of(env, rows, allDevices(env))
                    : null;
            if (o.has("--json")) {
                out.println(Json.render(g -> {
                    g.writeStartArray();
                    for (EpRow r : rows) {
                        EpDevice d = r.device();
                        g.writeStartObject();
                        g.writeStringField("ep", r.ep());
                        if (d == null) {
                            g.writeStringField("library", r.library());
                            g.writeStringField("state", r.state().name());
                            g.writeArrayFieldStart("sessions");
                            for (String s : r.holders()) {
                                g.writeString(s);
                            }
                            g.writeEndArray();
                            g.writeStringField("no_device", r.reason());
                            if (notOffered != null) {
                                writeIncompatibilities(g, r.ep(), notOffered);
                            }
                            g.writeEndObject();
                            continue;
                        }
                        g.writeStringField("vendor", d.epVendor());
                        g.writeStringField("device_type", d.device().type().name());
                        g.writeStringField("device_vendor", d.device().vendor());
                        g.writeBooleanField("virtual", d.device().isVirtual());
                        g.writeStringField("version", d.version());
                        g.writeStringField("state", r.state().name());
                        g.writeStringField("library", r.library());
                        g.writeArrayFieldStart("sessions");
                        for (String s : r.holders()) {
                            g.writeString(s);
                        }
                        g.writeEndArray();
                        writeMap(g, "ep_metadata", d.epMetadata());
                        writeMap(g, "ep_options", d.epOptions());
                        writeMap(g, "device_metadata", d.device().metadata());
                        if (notOffered != null) {
                            writeIncompatibilities(g, r.ep(), notOffered);
                        }
                        g.writeEndObject();
                    }
                    g.writeEndArray();
                }));
                return 0;
            }
            String format = "%-26s %-14s %-4s %-7s %-8s %-8s %s%n";
            out.printf(format, "EP", "VENDOR", "TYPE", "VIRTUAL", "VERSION", "STATE", "SESSIONS");
            for (EpRow r : rows) {
                EpDevice d = r.device();
                if (d == null) {
                    out.printf(format, Table.fit(r.ep(), 26), "-", "-", "-", "-", r.state(),
                            Table.fit(r.holders().isEmpty() ? "-" : String.join(",", r.holders()), 27));
                    out.println(Table.fitStart("  no device: " + r.reason(), 100));
                    continue;
                }
                out.printf(format, Table.fit(d.epName(), 26), Table.fit(d.epVendor(), 14), d.device().type(),
                        d.device().isVirtual() ? "yes" : "no", Table.fit(d.version(), 8), r.state(),
                        Table.fit(r.holders().isEmpty() ? "-" : String.join(",", r.holders()), 27));
            }
            if (notOffered != null) {
                out.println();
                out.println("DEVICES NOT OFFERED (what each EP's factory says)");
                if (notOffered.isEmpty()) {
                    out.println("  none: every EP offers every device");
                }
                for (Incompatibility i : notOffered) {
                    out.println(Table.fitStart("  " + i.ep() + " on " + i.deviceText() + ": " + i.detailsText(),
                            200));
                }
            }
        }
        return 0;
    }

    /** The hardware devices of this machine and configuration, then the virtual devices EPs offer. */
    private static List<HardwareDevice> allDevices(Environment env) {
        List<HardwareDevice> all = new ArrayList<>(env.hardwareDevices());
        for (EpDevice d : env.epDevices()) {
            if (d.device().isVirtual() && !all.contains(d.device())) {
                all.add(d.device());
            }
        }
        return all;
    }

    private static void writeIncompatibilities(JsonGenerator g, String ep, List<Incompatibility> all)
            throws IOException {
        g.writeArrayFieldStart("devices_not_offered");
        for (Incompatibility i : all) {
            if (!i.ep().equals(ep)) {
                continue;
            }
            g.writeStartObject();
            g.writeStringField("type", i.device().type().name());
            g.writeStringField("vendor", i.device().vendor());
            g.writeBooleanField("virtual", i.device().isVirtual());
            g.writeArrayFieldStart("reasons");
            for (String r : i.reasons()) {
                g.writeString(r);
            }
            g.writeEndArray();
            if (i.details() != null) {
                g.writeNumberField("error_code", i.details().errorCode());
                g.writeStringField("notes", i.details().notes());
            }
            g.writeEndObject();
        }
        g.writeEndArray();
    }

    private static void writeMap(JsonGenerator g, String field, Map<String, String> map) throws IOException {
        g.writeObjectFieldStart(field);
        for (Map.Entry<String, String> e : map.entrySet()) {
            g.writeStringField(e.getKey(), e.getValue());
        }
        g.writeEndObject();
    }
}
