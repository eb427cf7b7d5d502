/**
 * The recurrent kernels: LSTM, GRU and RNN in float32 and float64, forward, reverse and bidirectional, both
 * layouts. Registered by {@link io.ortex.ep.cpu.ops.rnn.RnnOps}.
 */
package io.ortex.ep.cpu.ops.rnn;
