/**
 * The example execution provider, the reference EP for EP authors: an emulated NPU that it offers only as a
 * virtual device, and compiled partitions of float32 MatMul, Gemm, Add, Mul, Relu and Conv nodes computed on the
 * host. Exports nothing; it is found through {@link io.ortex.api.spi.EpFactory}.
 */
module io.ortex.ep.example {
    requires io.ortex.api;
    requires static org.osgi.service.component.annotations;

    provides io.ortex.api.spi.EpFactory with io.ortex.ep.example.ExampleEpFactory;
}
