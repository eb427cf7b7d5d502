package io.ortex.itests.osgi;

import static org.junit.Assert.assertEquals;
import static org.ops4j.pax.exam.CoreOptions.mavenBundle;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Hashtable;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.Test;
import org.junit.runner.RunWith;
import org.ops4j.pax.exam.Configuration;
import org.ops4j.pax.exam.Option;
import org.ops4j.pax.exam.junit.PaxExam;
import org.osgi.framework.Bundle;
import org.osgi.framework.ServiceRegistration;
import org.osgi.service.event.Event;
import org.osgi.service.event.EventConstants;
import org.osgi.service.event.EventHandler;

/** With Felix EventAdmin in the framework, EP bundles arriving and leaving are posted as events. */
@RunWith(PaxExam.class)
public class EventAdminIT extends OsgiTestSupport {
    @Override
    protected boolean withExampleBundle() {
        return false;
    }

    /**
     * The usual framework plus Felix EventAdmin.
     *
     * @return the options
     */
    @Configuration
    @Override
    public Option[] configuration() {
        List<Option> o = new ArrayList<>(Arrays.asList(super.configuration()));
        o.add(mavenBundle("org.apache.felix", "org.apache.felix.eventadmin", "1.6.4"));
        return o.toArray(new Option[0]);
    }

    @Test
    public void anEpBundleArrivingAndLeavingIsPosted() throws Exception {
        configure("virtual.grants", EXAMPLE_BUNDLE);
        environment();
        BlockingQueue<Event> events = new LinkedBlockingQueue<>();
        Hashtable<String, Object> props = new Hashtable<>();
        props.put(EventConstants.EVENT_TOPIC, "io/ortex/ep/*");
        ServiceRegistration<EventHandler> handler = context.registerService(EventHandler.class, events::add, props);
        try {
            Bundle example = context.installBundle(exampleJar());
            example.start();
            Event added = next(events, "io/ortex/ep/ADDED");
            assertEquals(EXAMPLE_BUNDLE, added.getProperty("library"));
            assertEquals(List.of(EXAMPLE_EP), List.of((String[]) added.getProperty("ep.names")));
            assertEquals(List.of("NPU"), List.of((String[]) added.getProperty("device.types")));
            assertEquals(Boolean.TRUE, added.getProperty("virtual"));
            example.stop();
            Event removed = next(events, "io/ortex/ep/REMOVED");
            assertEquals(EXAMPLE_BUNDLE, removed.getProperty("library"));
            example.uninstall();
        } finally {
            handler.unregister();
        }
    }

    private static Event next(BlockingQueue<Event> events, String topic) throws InterruptedException {
        long end = System.currentTimeMillis() + 10_000;
        while (System.currentTimeMillis() < end) {
            Event e = events.poll(200, TimeUnit.MILLISECONDS);
            if (e != null && e.getTopic().equals(topic) && EXAMPLE_BUNDLE.equals(e.getProperty("library"))) {
                return e;
            }
        }
        throw new AssertionError("no " + topic + " event for " + EXAMPLE_BUNDLE + " within 10 s");
    }
}
