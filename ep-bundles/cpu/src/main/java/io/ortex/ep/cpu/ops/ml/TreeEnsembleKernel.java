package io.ortex.ep.cpu.ops.ml;

import io.ortex.api.InvalidArgumentException;
import io.ortex.api.InvalidModelException;
import io.ortex.api.NotImplementedException;
import io.ortex.api.Tensor;
import io.ortex.api.spi.NodeView;
import io.ortex.ep.cpu.CpuKernel;
import io.ortex.ep.cpu.ops.support.FloatData;
import io.ortex.ep.cpu.ops.support.Values;
import java.util.Arrays;

/**
 * TreeEnsemble (ai.onnx.ml opset 5): each tree starts at {@code tree_roots[t]} and follows the true or false
 * branch of each node (compare modes LEQ, LT, GTE, GT, EQ, NEQ and set membership) until a branch is marked as a
 * leaf; the leaf adds {@code leaf_weights[l]} to target {@code leaf_targetids[l]}. Trees are aggregated by average,
 * sum, min or max, then post-transformed (none, softmax, softmax-zero, logistic). Evaluation is in double.
 */
final class TreeEnsembleKernel {
    private static final int LEQ = 0;
    private static final int LT = 1;
    private static final int GTE = 2;
    private static final int GT = 3;
    private static final int EQ = 4;
    private static final int NEQ = 5;
    private static final int MEMBER = 6;

    private final int[] roots;
    private final int[] feature;
    private final int[] mode;
    private final double[] split;
    private final int[] trueNext;
    private final boolean[] trueLeaf;
    private final int[] falseNext;
    private final boolean[] falseLeaf;
    private final boolean[] missingTrue;
    private final double[][] members;
    private final int[] leafTarget;
    private final double[] leafWeight;
    private final int targets;
    private final int aggregate;
    private final int post;

    private TreeEnsembleKernel(NodeView node) {
        roots = ints(node, "tree_roots", true);
        feature = ints(node, "nodes_featureids", true);
        int n = feature.length;
        mode = new int[n];
        Tensor modes = node.tensorAttr("nodes_modes");
        if (modes == null || modes.size() != n) {
            throw new InvalidModelException("attribute 'nodes_modes' must hold one mode per node (" + n + ")");
        }
        for (int i = 0; i < n; i++) {
            mode[i] = (int) modes.getLong(i);
            if (mode[i] < LEQ || mode[i] > MEMBER) {
                throw new InvalidModelException("attribute 'nodes_modes' has unknown mode " + mode[i]);
            }
        }
        split = doubles(node, "nodes_splits", n);
        trueNext = ints(node, "nodes_truenodeids", true);
        falseNext = ints(node, "nodes_falsenodeids", true);
        trueLeaf = flags(node, "nodes_trueleafs", n);
        falseLeaf = flags(node, "nodes_falseleafs", n);
        missingTrue = flags(node, "nodes_missing_value_tracks_true", n);
        leafTarget = ints(node, "leaf_targetids", true);
        leafWeight = doubles(node, "leaf_weights", leafTarget.length);
        targets = (int) node.intAttr("n_targets", 1);
        aggregate = (int) node.intAttr("aggregate_function", 1);
        post = (int) node.intAttr("post_transform", 0);
        if (aggregate < 0 || aggregate > 3) {
            throw new InvalidModelException("attribute 'aggregate_function' has unknown value " + aggregate);
        }
        if (post == 4) {
            throw new NotImplementedException("attribute 'post_transform' value 4 (PROBIT) is not supported");
        }
        if (post < 0 || post > 4) {
            throw new InvalidModelException("attribute 'post_transform' has unknown value " + post);
        }
        members = new double[n][];
        Tensor mv = node.tensorAttr("membership_values");
        int at = 0;
        for (int i = 0; i < n; i++) {
            if (mode[i] != MEMBER) {
                continue;
            }
            if (mv == null) {
                throw new InvalidModelException("attribute 'membership_values' is needed by member nodes");
            }
            int start = at;
            while (at < mv.size() && !Double.isNaN(mv.getDouble(at))) {
                at++;
            }
            double[] set = new double[at - start];
            for (int k = 0; k < set.length; k++) {
                set[k] = mv.getDouble(start + k);
            }
            Arrays.sort(set);
            members[i] = set;
            at++;
        }
        checkLinks(n);
    }

    /**
     * Makes the kernel, reading the trees once.
     *
     * @param node the node
     * @return the kernel
     */
    static CpuKernel create(NodeView node) {
        TreeEnsembleKernel k = new TreeEnsembleKernel(node);
        return (in, ctx) -> k.run(in[0]);
    }

    private Tensor[] run(Tensor x) {
        FloatData.requireFloating(x, "input X");
        long[] xs = x.shape();
        int rows = xs.length <= 1 ? 1 : (int) xs[0];
        int features = xs.length == 0 ? 1 : (int) xs[xs.length - 1];
        if (xs.length > 2) {
            throw new InvalidArgumentException("input X must be 1-D or 2-D, got shape " + Tensor.shapeString(xs));
        }
        double[] v = Values.toDoubles(x);
        double[] out = new double[rows * targets];
        double[] acc = new double[targets];
        boolean[] hit = new boolean[targets];
        for (int r = 0; r < rows; r++) {
            Arrays.fill(acc, aggregate == 2 ? Double.POSITIVE_INFINITY
                    : aggregate == 3 ? Double.NEGATIVE_INFINITY : 0);
            Arrays.fill(hit, false);
            for (int root : roots) {
                int leaf = leaf(v, r * features, features, root);
                int t = leafTarget[leaf];
                double w = leafWeight[leaf];
                hit[t] = true;
                acc[t] = switch (aggregate) {
                    case 2 -> Math.min(acc[t], w);
                    case 3 -> Math.max(acc[t], w);
                    default -> acc[t] + w;
                };
            }
            for (int t = 0; t < targets; t++) {
                double a = hit[t] ? acc[t] : 0;
                out[r * targets + t] = aggregate == 0 ? a / roots.length : a;
            }
            postTransform(out, r * targets);
        }
        return new Tensor[] {Values.fromDoubles(x.type(), new long[] {rows, targets}, out)};
    }

    private int leaf(double[] v, int base, int features, int root) {
        int id = root;
        for (int steps = 0; steps <= feature.length; steps++) {
            if (feature[id] < 0 || feature[id] >= features) {
                throw new InvalidArgumentException("tree node " + id + " reads feature " + feature[id]
                        + " but X has " + features);
            }
            double f = v[base + feature[id]];
            boolean cond;
            if (Double.isNaN(f) && missingTrue[id]) {
                cond = true;
            } else {
                double s = split[id];
                cond = switch (mode[id]) {
                    case LEQ -> f <= s;
                    case LT -> f < s;
                    case GTE -> f >= s;
                    case GT -> f > s;
                    case EQ -> f == s;
                    case NEQ -> f != s;
                    default -> Arrays.binarySearch(members[id], f) >= 0;
                };
            }
            if (cond ? trueLeaf[id] : falseLeaf[id]) {
                return cond ? trueNext[id] : falseNext[id];
            }
            id = cond ? trueNext[id] : falseNext[id];
        }
        throw new InvalidModelException("tree starting at node " + root + " has a cycle");
    }

    private void postTransform(double[] out, int at) {
        if (post == 3) {
            for (int t = 0; t < targets; t++) {
                out[at + t] = 1 / (1 + Math.exp(-out[at + t]));
            }
        } else if (post == 1 || post == 2) {
            double max = Double.NEGATIVE_INFINITY;
            for (int t = 0; t < targets; t++) {
                max = Math.max(max, out[at + t]);
            }
            double sum = 0;
            for (int t = 0; t < targets; t++) {
                double e = post == 2 && out[at + t] == 0 ? 0 : Math.exp(out[at + t] - max);
                out[at + t] = e;
                sum += e;
            }
            for (int t = 0; t < targets; t++) {
                out[at + t] = sum == 0 ? 0 : out[at + t] / sum;
            }
        }
    }

    private void checkLinks(int n) {
        for (int i = 0; i < n; i++) {
            checkLink(trueNext[i], trueLeaf[i], n, "nodes_truenodeids", i);
            checkLink(falseNext[i], falseLeaf[i], n, "nodes_falsenodeids", i);
        }
        for (int r : roots) {
            checkLink(r, false, n, "tree_roots", r);
        }
        for (int t : leafTarget) {
            if (t < 0 || t >= targets) {
                throw new InvalidModelException("attribute 'leaf_targetids' has target " + t + " outside [0, "
                        + targets + ")");
            }
        }
    }

    private void checkLink(int id, boolean leaf, int n, String what, int at) {
        int limit = leaf ? leafTarget.length : n;
        if (id < 0 || id >= limit) {
            throw new InvalidModelException("attribute '" + what + "' entry " + at + " (" + id + ") is outside [0, "
                    + limit + ")");
        }
    }

    private static int[] ints(NodeView node, String name, boolean required) {
        long[] v = node.intsAttr(name, null);
        if (v == null) {
            if (required) {
                throw new InvalidModelException("attribute '" + name + "' is required");
            }
            return new int[0];
        }
        int[] r = new int[v.length];
        for (int i = 0; i < v.length; i++) {
            r[i] = Math.toIntExact(v[i]);
        }
        return r;
    }

    private static boolean[] flags(NodeView node, String name, int n) {
        long[] v = node.intsAttr(name, new long[n]);
        if (v.length != n) {
            throw new InvalidModelException("attribute '" + name + "' must have " + n + " entries, it has "
                    + v.length);
        }
        boolean[] r = new boolean[n];
        for (int i = 0; i < n; i++) {
            r[i] = v[i] != 0;
        }
        return r;
    }

    private static double[] doubles(NodeView node, String name, int n) {
        Tensor t = node.tensorAttr(name);
        if (t == null || t.size() != n) {
            throw new InvalidModelException("attribute '" + name + "' must be a tensor of " + n + " values");
        }
        return Values.toDoubles(t);
    }
}
