/**
 * The Ortex application API ({@code io.ortex.api}) and the execution-provider SPI ({@code io.ortex.api.spi}).
 * It has no dependencies; the runtime implements {@link io.ortex.api.EnvironmentFactory} and execution providers
 * implement {@link io.ortex.api.spi.EpFactory}.
 */
module io.ortex.api {
    requires static org.osgi.annotation.bundle;
    requires static org.osgi.annotation.versioning;

    exports io.ortex.api;
    exports io.ortex.api.spi;

    uses io.ortex.api.EnvironmentFactory;
}
