package io.ortex.serve.internal;

/**
 * One model version's figures as the status page shows them, read from {@link Metrics} at one moment. Immutable.
 *
 * @param model the model's name
 * @param version the version that served the requests (empty for requests that found none)
 * @param requests the inference requests since the server started
 * @param failures those that failed
 * @param perSecond the requests per second over the last minute (over the time since the first request when that
 *                  is shorter)
 * @param meanMillis the mean request latency, in milliseconds
 * @param p50Millis the median request latency, estimated from the latency histogram, in milliseconds
 * @param p99Millis the 99th percentile of the request latency, estimated likewise, in milliseconds
 */
public record ModelStats(String model, String version, long requests, long failures, double perSecond,
                         double meanMillis, double p50Millis, double p99Millis) {
}
