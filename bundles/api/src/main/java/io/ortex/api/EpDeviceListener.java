package io.ortex.api;

/**
 * Hears EP devices arrive and leave an {@link Environment}: when an EP library is registered or its removal begins.
 * Called on the thread that registers or unregisters, after the change is visible in
 * {@link Environment#epDevices()}; a listener must return quickly and must not throw.
 */
public interface EpDeviceListener {
    /**
     * EP devices became available.
     *
     * @param library the registration name of the EP library
     * @param devices the new EP devices
     */
    void added(String library, java.util.List<EpDevice> devices);

    /**
     * EP devices were withdrawn: they can no longer be selected. Sessions already holding them keep them until
     * they close.
     *
     * @param library the registration name of the EP library
     * @param devices the withdrawn EP devices
     */
    void removed(String library, java.util.List<EpDevice> devices);
}
