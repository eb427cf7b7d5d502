/**
 * The serving load test: starts the distribution's model server ({@code bin/ortex serve}) on the loopback interface,
 * drives it with closed-loop REST and gRPC clients, with and without dynamic batching, while the example EP bundle is
 * dropped into and removed from {@code deploy/} and model versions are replaced, checks every answer against a
 * direct session run, and writes {@code docs/serving.md} ({@link io.ortex.benchmarks.serving.ServingReport}).
 */
package io.ortex.benchmarks.serving;
