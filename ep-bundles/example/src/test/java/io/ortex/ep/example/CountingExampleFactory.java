package io.ortex.ep.example;

import io.ortex.api.CompiledModelCompatibility;
import io.ortex.api.HardwareDevice;
import io.ortex.api.spi.ComputeKernel;
import io.ortex.api.spi.DataLayout;
import io.ortex.api.spi.EpContextNode;
import io.ortex.api.spi.EpFactory;
import io.ortex.api.spi.ExecutionProvider;
import io.ortex.api.spi.FusedNode;
import io.ortex.api.spi.GraphSupport;
import io.ortex.api.spi.GraphView;
import io.ortex.api.spi.LayoutConversion;
import io.ortex.api.spi.SupportedDevice;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The example EP's factory with a chosen version, counting the partitions its EPs compile from nodes and those they
 * load from EPContext nodes, and keeping what the runtime handed its EPs to compile (the runtime's own group views)
 * and the kernels they returned.
 */
final class CountingExampleFactory implements EpFactory {
    private final ExampleEpFactory inner = new ExampleEpFactory();
    private final String version;
    final AtomicInteger compiled = new AtomicInteger();
    final AtomicInteger loaded = new AtomicInteger();
    /** The groups the runtime asked the EPs to compile, in order. */
    final List<GraphView> graphs = new CopyOnWriteArrayList<>();
    /** The kernels the EPs returned, one per group. */
    final List<ComputeKernel> kernels = new CopyOnWriteArrayList<>();

    CountingExampleFactory(String version) {
        this.version = version;
    }

    @Override
    public String name() {
        return inner.name();
    }

    @Override
    public String vendor() {
        return inner.vendor();
    }

    @Override
    public int vendorId() {
        return inner.vendorId();
    }

    @Override
    public String version() {
        return version;
    }

    @Override
    public List<SupportedDevice> supportedDevices(List<HardwareDevice> hardware, Map<String, String> config) {
        return inner.supportedDevices(hardware, config);
    }

    @Override
    public ExecutionProvider createEp(List<SupportedDevice> devices, Map<String, String> sessionConfig) {
        ExecutionProvider ep = inner.createEp(devices, sessionConfig);
        return new ExecutionProvider() {
            @Override
            public String name() {
                return ep.name();
            }

            @Override
            public void getCapability(GraphView graph, GraphSupport support) {
                ep.getCapability(graph, support);
            }

            @Override
            public List<ComputeKernel> compile(List<GraphView> graphs, List<FusedNode> fusedNodes) {
                for (GraphView g : graphs) {
                    boolean fromContext = g.nodes().size() == 1 && EpContextNode.isEpContext(g.nodes().get(0));
                    (fromContext ? loaded : compiled).incrementAndGet();
                }
                List<ComputeKernel> out = ep.compile(graphs, fusedNodes);
                CountingExampleFactory.this.graphs.addAll(graphs);
                kernels.addAll(out);
                return out;
            }

            @Override
            public Optional<String> compatibilityInfo(GraphView graph) {
                return ep.compatibilityInfo(graph);
            }

            @Override
            public DataLayout preferredDataLayout() {
                return ep.preferredDataLayout();
            }

            @Override
            public LayoutConversion shouldConvertDataLayout(String domain, String opType, DataLayout target) {
                return ep.shouldConvertDataLayout(domain, opType, target);
            }
        };
    }

    @Override
    public void releaseEp(ExecutionProvider ep) {
        // the wrapped EP holds nothing to release
    }

    @Override
    public CompiledModelCompatibility validateCompiledModelCompatibility(List<HardwareDevice> devices,
                                                                        String compatibilityInfo) {
        return inner.validateCompiledModelCompatibility(devices, compatibilityInfo);
    }
}
