package io.ortex.runtime.osgi;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.ortex.api.EpDevice;
import io.ortex.api.HardwareDevice;
import io.ortex.api.HardwareDeviceType;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.osgi.service.event.Event;
import org.osgi.service.event.EventAdmin;

class EpEventPublisherTest {
    private static final EpDevice NPU = new EpDevice("ExampleExecutionProvider", "Ortex Examples", Map.of(), Map.of(),
            new HardwareDevice(HardwareDeviceType.NPU, 0x4f58, 0, "Ortex Examples", Map.of("is_virtual", "1")));

    /** Records what is posted. */
    private static final class RecordingEventAdmin implements EventAdmin {
        final List<Event> posted = new ArrayList<>();

        @Override
        public void postEvent(Event event) {
            posted.add(event);
        }

        @Override
        public void sendEvent(Event event) {
            throw new AssertionError("events must be posted asynchronously, not sent");
        }
    }

    @Test
    void arrivalsAndRemovalsArePostedWithTheLibraryAndDevices() {
        RecordingEventAdmin admin = new RecordingEventAdmin();
        EpEventPublisher publisher = new EpEventPublisher(() -> admin);
        publisher.added("io.ortex.ep.example", List.of(NPU));
        publisher.removed("io.ortex.ep.example", List.of(NPU));
        assertEquals(2, admin.posted.size());
        Event added = admin.posted.get(0);
        assertEquals(EpEventPublisher.TOPIC_ADDED, added.getTopic());
        assertEquals("io.ortex.ep.example", added.getProperty(EpEventPublisher.LIBRARY));
        assertArrayEquals(new String[] {"ExampleExecutionProvider"},
                (String[]) added.getProperty(EpEventPublisher.EP_NAMES));
        assertArrayEquals(new String[] {"NPU"}, (String[]) added.getProperty(EpEventPublisher.DEVICE_TYPES));
        assertEquals(Boolean.TRUE, added.getProperty(EpEventPublisher.VIRTUAL));
        assertEquals(EpEventPublisher.TOPIC_REMOVED, admin.posted.get(1).getTopic());
    }

    @Test
    void withoutEventAdminNothingHappens() {
        EpEventPublisher publisher = new EpEventPublisher(() -> null);
        assertDoesNotThrow(() -> publisher.added("lib", List.of(NPU)));
        assertDoesNotThrow(() -> publisher.removed("lib", List.of(NPU)));
    }

    @Test
    void aServiceThatIsNotAnEventAdminIsIgnoredAfterOneWarning() {
        int[] calls = {0};
        EpEventPublisher publisher = new EpEventPublisher(() -> {
            calls[0]++;
            return "not an EventAdmin";
        });
        publisher.added("lib", List.of(NPU));
        publisher.added("lib", List.of(NPU));
        assertEquals(2, calls[0], "the supplier is asked each time; the bad service is skipped without throwing");
    }
}
