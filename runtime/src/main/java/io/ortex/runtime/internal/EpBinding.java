package io.ortex.runtime.internal;

import io.ortex.api.spi.EpFactory;
import io.ortex.api.spi.SupportedDevice;
import java.util.List;

/**
 * An EP chosen for a session: its factory and the devices it was chosen for.
 *
 * @param factory the EP's factory
 * @param devices the devices, from the factory's own answer
 */
record EpBinding(EpFactory factory, List<SupportedDevice> devices) {
}
