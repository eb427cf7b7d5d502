package io.ortex.runtime.internal;

import io.ortex.api.HardwareDevice;
import io.ortex.api.HardwareDeviceType;
import io.ortex.api.spi.DataTransfer;
import io.ortex.api.spi.EpFactory;
import io.ortex.api.spi.ExecutionProvider;
import io.ortex.api.spi.SupportedDevice;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

/**
 * A test factory that hands out EPs from a supplier (or delegates to another factory) and counts them. A factory of
 * fake EPs can be limited to one device type, given a vendor, default EP options and a data transfer; it records what
 * its last {@link #createEp} call received, and marks the {@link FakeEp}s it releases.
 */
class CountingEpFactory implements EpFactory {
    private final String name;
    private final EpFactory delegate;
    private final Supplier<ExecutionProvider> eps;
    final AtomicInteger created = new AtomicInteger();
    final AtomicInteger released = new AtomicInteger();
    private HardwareDeviceType deviceType;
    private String vendor = "tests";
    private int vendorId;
    private Map<String, String> deviceOptions = Map.of();
    private DataTransfer dataTransfer;
    volatile List<SupportedDevice> lastDevices;
    volatile Map<String, String> lastConfig;

    /** Wraps a real factory, keeping its name. */
    CountingEpFactory(EpFactory delegate) {
        this.name = delegate.name();
        this.delegate = delegate;
        this.eps = null;
    }

    /** A factory for fake EPs. */
    CountingEpFactory(String name, Supplier<ExecutionProvider> eps) {
        this.name = name;
        this.delegate = null;
        this.eps = eps;
    }

    /** Supports only devices of one type (a factory of fake EPs supports every device by default). */
    CountingEpFactory onlyType(HardwareDeviceType type) {
        this.deviceType = type;
        return this;
    }

    /** Sets the EP vendor and PCI vendor id (default {@code tests}, 0). */
    CountingEpFactory vendor(String vendorName, int id) {
        this.vendor = vendorName;
        this.vendorId = id;
        return this;
    }

    /** Sets the default EP options of every device it supports. */
    CountingEpFactory deviceOptions(Map<String, String> options) {
        this.deviceOptions = Map.copyOf(options);
        return this;
    }

    /** Sets the data transfer it offers. */
    CountingEpFactory dataTransfer(DataTransfer transfer) {
        this.dataTransfer = transfer;
        return this;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public String vendor() {
        return vendor;
    }

    @Override
    public int vendorId() {
        return vendorId;
    }

    @Override
    public String version() {
        return delegate != null ? delegate.version() : "1.2.3";
    }

    @Override
    public List<SupportedDevice> supportedDevices(List<HardwareDevice> hardware, Map<String, String> config) {
        return delegate != null ? delegate.supportedDevices(hardware, config)
                : hardware.stream().filter(d -> deviceType == null || d.type() == deviceType)
                        .map(d -> new SupportedDevice(d, Map.of(), deviceOptions)).toList();
    }

    @Override
    public ExecutionProvider createEp(List<SupportedDevice> devices, Map<String, String> sessionConfig) {
        created.incrementAndGet();
        lastDevices = List.copyOf(devices);
        lastConfig = sessionConfig;
        return delegate != null ? delegate.createEp(devices, sessionConfig) : eps.get();
    }

    @Override
    public void releaseEp(ExecutionProvider ep) {
        released.incrementAndGet();
        if (ep instanceof FakeEp fake) {
            fake.released = true;
        }
        if (delegate != null) {
            delegate.releaseEp(ep);
        }
    }

    @Override
    public Optional<DataTransfer> dataTransfer() {
        return delegate != null ? delegate.dataTransfer() : Optional.ofNullable(dataTransfer);
    }
}
