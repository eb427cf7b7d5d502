package io.ortex.ep.ort;

import ai.onnxruntime.OnnxTensor;
import ai.onnxruntime.OnnxValue;
import ai.onnxruntime.OrtEnvironment;
import ai.onnxruntime.OrtException;
import ai.onnxruntime.OrtSession;
import io.ortex.api.ErrorCode;
import io.ortex.api.OrtexException;
import io.ortex.api.Tensor;
import io.ortex.api.spi.ComputeKernel;
import io.ortex.api.spi.EpContextPayload;
import io.ortex.api.spi.KernelContext;
import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * The kernel of one partition: runs its ONNX Runtime session. The fused node's inputs are fed by name (an input the
 * partition model does not declare, such as a constant it holds itself, is skipped) through direct buffers that are
 * kept and reused by later runs, one set per concurrent run; outputs are copied out once. Thread safe: ONNX
 * Runtime's {@code run} may be called concurrently.
 */
final class OrtKernel implements ComputeKernel {
    private final String partition;
    private final PartitionSession session;
    private final List<String> inputNames;
    private final List<String> outputNames;
    private final boolean[] fed;
    private final EpContextPayload payload;
    private final ConcurrentLinkedQueue<ByteBuffer[]> buffers = new ConcurrentLinkedQueue<>();

    /**
     * Creates the kernel.
     *
     * @param partition the fused node's name, for messages
     * @param session the partition's session, owned by the kernel from now on
     * @param inputNames the fused node's input names, in the order the runtime passes them
     * @param outputNames the fused node's output names, in the order the runtime expects them
     * @param payload the EPContext payload, or {@code null}
     */
    OrtKernel(String partition, PartitionSession session, List<String> inputNames, List<String> outputNames,
              EpContextPayload payload) {
        this.partition = partition;
        this.session = session;
        this.inputNames = List.copyOf(inputNames);
        this.outputNames = List.copyOf(outputNames);
        Set<String> declared = new HashSet<>(session.inputNames());
        this.fed = new boolean[inputNames.size()];
        for (int i = 0; i < fed.length; i++) {
            fed[i] = declared.contains(inputNames.get(i));
        }
        this.payload = payload;
    }

    @Override
    public Tensor[] compute(KernelContext context, Tensor[] inputs) {
        if (outputNames.isEmpty()) {
            // a partition whose results nobody reads: nothing to compute (ONNX Runtime refuses a run without outputs)
            return new Tensor[0];
        }
        OrtEnvironment env = OrtRuntime.environment();
        ByteBuffer[] own = buffers.poll();
        if (own == null) {
            own = new ByteBuffer[inputs.length];
        }
        Map<String, OnnxTensor> feeds = new HashMap<>();
        try {
            for (int i = 0; i < inputs.length; i++) {
                if (!fed[i] || inputs[i] == null) {
                    continue;
                }
                own[i] = TensorBridge.buffer(own[i], TensorBridge.byteSize(inputs[i]));
                feeds.put(inputNames.get(i), TensorBridge.toOrt(env, inputs[i], own[i]));
            }
            Tensor[] out = new Tensor[outputNames.size()];
            try (OrtSession.Result result = session.session().run(feeds)) {
                for (int o = 0; o < out.length; o++) {
                    String name = outputNames.get(o);
                    OnnxValue v = result.get(name).orElseThrow(() -> new OrtexException(ErrorCode.FAIL,
                            "partition " + partition + ": ONNX Runtime returned no output '" + name + "'"));
                    if (!(v instanceof OnnxTensor t)) {
                        throw new OrtexException(ErrorCode.NOT_IMPLEMENTED, "partition " + partition + ": output '"
                                + name + "' is a " + v.getType() + ", not a tensor");
                    }
                    out[o] = TensorBridge.fromOrt(t, name);
                }
            }
            return out;
        } catch (OrtException e) {
            throw new OrtexException(ErrorCode.FAIL, "partition " + partition + ": ONNX Runtime failed: "
                    + OrtRuntime.message(e), e);
        } finally {
            feeds.values().forEach(OnnxTensor::close);
            buffers.offer(own);
        }
    }

    @Override
    public Optional<EpContextPayload> epContext() {
        return Optional.ofNullable(payload);
    }

    /** Closes the session; the buffers go with the kernel. */
    @Override
    public void close() {
        session.close();
        buffers.clear();
    }
}
