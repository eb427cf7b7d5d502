package io.ortex.runtime.internal;

import io.ortex.api.Tensor;
import io.ortex.api.spi.ComputeKernel;
import io.ortex.api.spi.DataLayout;
import io.ortex.api.spi.ExecutionProvider;
import io.ortex.api.spi.FusedNode;
import io.ortex.api.spi.GraphSupport;
import io.ortex.api.spi.GraphView;
import io.ortex.api.spi.KernelContext;
import io.ortex.api.spi.LayoutConversion;
import io.ortex.api.spi.NodeView;
import io.ortex.api.spi.ValueView;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.function.BiFunction;

/**
 * A test EP with a preferred layout and an answer to {@link #shouldConvertDataLayout}: it claims, one node each, the
 * {@code Conv} and {@code Relu} nodes of the ONNX domain and of the NHWC domain, and runs them itself: a Conv of the
 * NHWC domain on channels-last data with the weight as ONNX gives it, one of the ONNX domain on channels-first data.
 * It records the ops of every graph it was offered.
 */
final class NhwcTestEp implements ExecutionProvider {
    private final DataLayout layout;
    private final BiFunction<String, String, LayoutConversion> answer;
    private final Set<String> claimedDomains;
    /** The ops ({@code domain::op} or {@code op}) of each graph offered to {@link #getCapability}, in call order. */
    final List<List<String>> offered = new ArrayList<>();

    /**
     * Creates the EP.
     *
     * @param layout the preferred layout
     * @param answer the answer to {@code shouldConvertDataLayout(domain, opType, NHWC)}
     * @param claimedDomains the domains whose Conv and Relu nodes it claims
     */
    NhwcTestEp(DataLayout layout, BiFunction<String, String, LayoutConversion> answer, Set<String> claimedDomains) {
        this.layout = layout;
        this.answer = answer;
        this.claimedDomains = claimedDomains;
    }

    @Override
    public String name() {
        return "NhwcTestEP";
    }

    @Override
    public DataLayout preferredDataLayout() {
        return layout;
    }

    @Override
    public LayoutConversion shouldConvertDataLayout(String domain, String opType, DataLayout target) {
        return answer.apply(domain, opType);
    }

    @Override
    public void getCapability(GraphView graph, GraphSupport support) {
        offered.add(graph.nodes().stream().map(Partitioner::opName).toList());
        for (NodeView n : graph.nodes()) {
            if (claimedDomains.contains(n.domain()) && (n.opType().equals("Conv") || n.opType().equals("Relu"))) {
                support.addSingleNode(n);
            }
        }
    }

    @Override
    public List<ComputeKernel> compile(List<GraphView> graphs, List<FusedNode> fusedNodes) {
        List<ComputeKernel> kernels = new ArrayList<>();
        for (int k = 0; k < graphs.size(); k++) {
            NodeView node = graphs.get(k).nodes().get(0);
            List<String> names = fusedNodes.get(k).inputNames();
            kernels.add((KernelContext context, Tensor[] in) -> {
                Tensor[] operands = new Tensor[node.inputs().size()];
                for (int i = 0; i < operands.length; i++) {
                    ValueView v = node.inputs().get(i);
                    operands[i] = v == null ? null : in[names.indexOf(v.name())];
                }
                return new Tensor[] {run(node, operands)};
            });
        }
        return kernels;
    }

    private static Tensor run(NodeView node, Tensor[] in) {
        if (node.opType().equals("Relu")) {
            float[] x = in[0].floats();
            float[] r = new float[x.length];
            for (int i = 0; i < r.length; i++) {
                r[i] = Math.max(0f, x[i]);
            }
            return Tensor.ofFloats(r, in[0].shape());
        }
        Tensor bias = in.length > 2 ? in[2] : null;
        if (node.domain().equals(DataLayout.NHWC_DOMAIN)) {
            return convNhwc(in[0], in[1], bias, node);
        }
        return transpose(convNhwc(transpose(in[0], 0, 2, 3, 1), in[1], bias, node), 0, 3, 1, 2);
    }

    /** A 2-D Conv on {@code [N, H, W, C]} data with an ONNX weight {@code [M, C/group, kH, kW]}, by plain loops. */
    static Tensor convNhwc(Tensor x, Tensor w, Tensor bias, NodeView node) {
        int n = (int) x.dim(0);
        int h = (int) x.dim(1);
        int wd = (int) x.dim(2);
        int c = (int) x.dim(3);
        int m = (int) w.dim(0);
        int kc = (int) w.dim(1);
        int kh = (int) w.dim(2);
        int kw = (int) w.dim(3);
        int group = (int) node.intAttr("group", 1);
        long[] s = node.intsAttr("strides", new long[] {1, 1});
        long[] p = node.intsAttr("pads", new long[] {0, 0, 0, 0});
        long[] d = node.intsAttr("dilations", new long[] {1, 1});
        int oh = (int) ((h + p[0] + p[2] - ((kh - 1) * d[0] + 1)) / s[0] + 1);
        int ow = (int) ((wd + p[1] + p[3] - ((kw - 1) * d[1] + 1)) / s[1] + 1);
        float[] xv = x.floats();
        float[] wv = w.floats();
        float[] out = new float[n * oh * ow * m];
        int perGroup = m / group;
        for (int b = 0; b < n; b++) {
            for (int oy = 0; oy < oh; oy++) {
                for (int ox = 0; ox < ow; ox++) {
                    for (int f = 0; f < m; f++) {
                        int g = f / perGroup;
                        float sum = bias == null ? 0f : bias.floats()[f];
                        for (int ci = 0; ci < kc; ci++) {
                            for (int i = 0; i < kh; i++) {
                                long iy = oy * s[0] - p[0] + i * d[0];
                                for (int j = 0; j < kw; j++) {
                                    long ix = ox * s[1] - p[1] + j * d[1];
                                    if (iy >= 0 && iy < h && ix >= 0 && ix < wd) {
                                        sum += xv[(int) (((b * h + iy) * wd + ix) * c + g * kc + ci)]
                                                * wv[((f * kc + ci) * kh + i) * kw + j];
                                    }
                                }
                            }
                        }
                        out[((b * oh + oy) * ow + ox) * m + f] = sum;
                    }
                }
            }
        }
        return Tensor.ofFloats(out, n, oh, ow, m);
    }

    /** Transposes a rank-4 float tensor. */
    static Tensor transpose(Tensor t, int... perm) {
        long[] shape = t.shape();
        long[] outShape = new long[4];
        for (int i = 0; i < 4; i++) {
            outShape[i] = shape[perm[i]];
        }
        int[] stride = {(int) (shape[1] * shape[2] * shape[3]), (int) (shape[2] * shape[3]), (int) shape[3], 1};
        float[] src = t.floats();
        float[] out = new float[src.length];
        int k = 0;
        for (int a = 0; a < outShape[0]; a++) {
            for (int b = 0; b < outShape[1]; b++) {
                for (int c = 0; c < outShape[2]; c++) {
                    for (int e = 0; e < outShape[3]; e++) {
                        out[k++] = src[a * stride[perm[0]] + b * stride[perm[1]] + c * stride[perm[2]]
                                + e * stride[perm[3]]];
                    }
                }
            }
        }
        return Tensor.ofFloats(out, outShape);
    }
}
