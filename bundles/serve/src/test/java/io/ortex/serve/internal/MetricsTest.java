package io.ortex.serve.internal;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ortex.api.EpDevice;
import io.ortex.api.EpLibraryInfo;
import io.ortex.api.HardwareDevice;
import io.ortex.api.HardwareDeviceType;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class MetricsTest {
    @Test
    void writesCountersAndCumulativeHistograms() {
        Metrics m = new Metrics();
        m.record("a", "1", true, 2_000_000, 1_000_000);
        m.record("a", "1", false, 30_000_000, -1);
        m.record("we\"ird\nname", "2", true, 20_000_000_000L, 5);
        String text = m.prometheusText();
        assertTrue(text.contains("# TYPE ortex_inference_requests_total counter\n"), text);
        assertTrue(text.contains("ortex_inference_requests_total{model=\"a\",version=\"1\"} 2\n"), text);
        assertTrue(text.contains("ortex_inference_failures_total{model=\"a\",version=\"1\"} 1\n"), text);
        assertTrue(text.contains("ortex_inference_request_duration_seconds_bucket{model=\"a\",version=\"1\","
                + "le=\"0.0025\"} 1\n"), text);
        assertTrue(text.contains("ortex_inference_request_duration_seconds_bucket{model=\"a\",version=\"1\","
                + "le=\"0.05\"} 2\n"), text);
        assertTrue(text.contains("ortex_inference_request_duration_seconds_bucket{model=\"a\",version=\"1\","
                + "le=\"+Inf\"} 2\n"), text);
        assertTrue(text.contains("ortex_inference_request_duration_seconds_sum{model=\"a\",version=\"1\"} "
                + "0.032000000\n"), text);
        assertTrue(text.contains("ortex_inference_compute_duration_seconds_count{model=\"a\",version=\"1\"} 1\n"),
                text);
        // a label value cannot break the line or the quoting
        assertTrue(text.contains("{model=\"we\\\"ird\\nname\",version=\"2\"}"), text);
        assertTrue(text.contains("le=\"10.0\"} 0\n"), text);
    }

    @Test
    void writesQueueAndBatchSizeHistogramsAndEpDeviceStates() {
        HardwareDevice gpu = new HardwareDevice(HardwareDeviceType.GPU, 0x10de, 0x2330, "NVIDIA",
                Map.of("pci_bus_id", "0000:01:00.0"));
        EpDevice device = new EpDevice("GpuEP", "Acme", Map.of(), Map.of(), gpu);
        Metrics m = new Metrics(List::of, () -> List.of(new EpLibraryInfo("gpu\"lib", EpLibraryInfo.State.DRAINING,
                List.of(device, device), List.of("s1"))));
        m.record("a", "1", true, 3_000_000, 1_000_000, 2_000_000);
        m.recordBatch("a", "1", 1);
        m.recordBatch("a", "1", 3);
        m.recordBatch("a", "1", 3);
        String text = m.prometheusText();
        assertTrue(text.contains("ortex_inference_queue_duration_seconds_bucket{model=\"a\",version=\"1\","
                + "le=\"0.001\"} 1\n"), text);
        assertTrue(text.contains("# TYPE ortex_inference_batch_size histogram\n"), text);
        assertTrue(text.contains("ortex_inference_batch_size_bucket{model=\"a\",version=\"1\",le=\"2.0\"} 1\n"), text);
        assertTrue(text.contains("ortex_inference_batch_size_bucket{model=\"a\",version=\"1\",le=\"4.0\"} 3\n"), text);
        assertTrue(text.contains("ortex_inference_batch_size_sum{model=\"a\",version=\"1\"} 7\n"), text);
        assertTrue(text.contains("ortex_inference_batch_size_count{model=\"a\",version=\"1\"} 3\n"), text);
        String labels = "ortex_ep_device_state{library=\"gpu\\\"lib\",ep=\"GpuEP\",device=\"GPU 10de:2330 0000:01:00.0";
        assertTrue(text.contains(labels + "\",state=\"draining\"} 1\n"), text);
        assertTrue(text.contains(labels + "\",state=\"active\"} 0\n"), text);
        // two devices alike in every field are two series still
        assertTrue(text.contains(labels + " #2\",state=\"draining\"} 1\n"), text);
    }
}
