package io.ortex.serve.internal;

import static org.junit.jupiter.api.Assertions.assertTrue;

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
}
