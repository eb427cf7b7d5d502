/**
 * The Ortex model server: the Open Inference Protocol v2 (the REST protocol of KServe, Triton and MLServer) over the
 * OSGi HTTP Whiteboard, serving the models of a watched {@code models/} folder, with Prometheus metrics. The bundle
 * exports nothing: it publishes a servlet to the whiteboard and the Gogo command {@code ortex:models}.
 */
package io.ortex.serve;
