package io.ortex.runtime.internal;

import io.ortex.api.HardwareDevice;
import io.ortex.api.spi.EpFactory;
import io.ortex.api.spi.ExecutionProvider;
import io.ortex.api.spi.SupportedDevice;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

/** A test factory that hands out EPs from a supplier (or delegates to another factory) and counts them. */
class CountingEpFactory implements EpFactory {
    private final String name;
    private final EpFactory delegate;
    private final Supplier<ExecutionProvider> eps;
    final AtomicInteger created = new AtomicInteger();
    final AtomicInteger released = new AtomicInteger();

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

    @Override
    public String name() {
        return name;
    }

    @Override
    public String vendor() {
        return "tests";
    }

    @Override
    public int vendorId() {
        return 0;
    }

    @Override
    public String version() {
        return delegate != null ? delegate.version() : "1.2.3";
    }

    @Override
    public List<SupportedDevice> supportedDevices(List<HardwareDevice> hardware, Map<String, String> config) {
        return delegate != null ? delegate.supportedDevices(hardware, config)
                : hardware.stream().map(SupportedDevice::of).toList();
    }

    @Override
    public ExecutionProvider createEp(List<SupportedDevice> devices, Map<String, String> sessionConfig) {
        created.incrementAndGet();
        return delegate != null ? delegate.createEp(devices, sessionConfig) : eps.get();
    }

    @Override
    public void releaseEp(ExecutionProvider ep) {
        released.incrementAndGet();
        if (delegate != null) {
            delegate.releaseEp(ep);
        }
    }
}
