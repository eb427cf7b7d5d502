package io.ortex.api;

import java.util.Map;

/**
 * Creates {@link Environment}s when no OSGi framework is present. The Ortex runtime provides the one
 * implementation, found by {@link java.util.ServiceLoader}; applications call {@link Environment#create()}.
 */
public interface EnvironmentFactory {
    /**
     * Creates an environment.
     *
     * @param config environment configuration entries, such as {@code allow_virtual_devices}
     * @return a new environment, which the caller must close
     */
    Environment create(Map<String, String> config);
}
