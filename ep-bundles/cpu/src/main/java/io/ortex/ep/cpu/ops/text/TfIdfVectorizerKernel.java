package io.ortex.ep.cpu.ops.text;

import io.ortex.api.ElementType;
import io.ortex.api.InvalidArgumentException;
import io.ortex.api.InvalidModelException;
import io.ortex.api.Tensor;
import io.ortex.api.spi.NodeView;
import io.ortex.ep.cpu.CpuKernel;
import io.ortex.ep.cpu.ops.support.Shapes;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * TfIdfVectorizer (opset 9): counts, per row of a {@code [C]} or {@code [N, C]} tensor of int32, int64 or string
 * tokens, the n-grams of the pool ({@code pool_int64s} or {@code pool_strings}, grouped by length with
 * {@code ngram_counts} giving where each length starts) that occur with the items {@code skip + 1} apart, for every
 * skip up to {@code max_skip_count} and lengths {@code min_gram_length..max_gram_length} (unigrams counted once).
 * Counts land at {@code ngram_indexes} and are output as TF (counts), IDF ({@code weights} where the count is
 * non-zero, else 1) or TFIDF (counts times weights).
 */
final class TfIdfVectorizerKernel {
    /** A trie node: the next token's children and the output index of the n-gram ending here (-1 for none). */
    private static final class Node {
        final Map<Long, Node> next = new HashMap<>();
        int index = -1;
    }

    private enum Mode { TF, IDF, TFIDF }

    private TfIdfVectorizerKernel() {
    }

    /**
     * Makes the kernel.
     *
     * @param node the node
     * @return the kernel
     */
    static CpuKernel create(NodeView node) {
        int minGram = (int) Shapes.requiredScalarAttr(node, "min_gram_length");
        int maxGram = (int) Shapes.requiredScalarAttr(node, "max_gram_length");
        int maxSkip = (int) Shapes.requiredScalarAttr(node, "max_skip_count");
        String modeName = node.stringAttr("mode", null);
        Mode mode;
        try {
            mode = Mode.valueOf(modeName);
        } catch (RuntimeException e) {
            throw new InvalidModelException("TfIdfVectorizer attribute 'mode' must be TF, IDF or TFIDF, not '"
                    + modeName + "'");
        }
        if (minGram < 1 || maxGram < minGram || maxSkip < 0) {
            throw new InvalidModelException("TfIdfVectorizer attributes 'min_gram_length' " + minGram
                    + ", 'max_gram_length' " + maxGram + " and 'max_skip_count' " + maxSkip + " are inconsistent");
        }
        long[] counts = Shapes.requiredInts(node, "ngram_counts");
        long[] indexes = Shapes.requiredInts(node, "ngram_indexes");
        float[] weights = node.floatsAttr("weights", null);
        long[] poolInts = node.intsAttr("pool_int64s", null);
        List<String> poolStrings = node.attribute("pool_strings").map(a -> a.asStrings()).orElse(null);
        if ((poolInts == null) == (poolStrings == null)) {
            throw new InvalidModelException("TfIdfVectorizer needs exactly one of the attributes 'pool_int64s' and "
                    + "'pool_strings'");
        }
        Map<String, Long> tokenIds = new HashMap<>();
        long[] pool = poolInts;
        if (poolStrings != null) {
            pool = new long[poolStrings.size()];
            for (int i = 0; i < pool.length; i++) {
                pool[i] = tokenIds.computeIfAbsent(poolStrings.get(i), k -> (long) tokenIds.size());
            }
        }
        Node root = new Node();
        int outSize = 0;
        int gram = 0;
        for (int g = 0; g < counts.length; g++) {
            int n = g + 1;
            int start = (int) counts[g];
            int end = g + 1 < counts.length ? (int) counts[g + 1] : pool.length;
            if (start < 0 || end > pool.length || start > end || (end - start) % n != 0) {
                throw new InvalidModelException("TfIdfVectorizer attribute 'ngram_counts' " + java.util.Arrays
                        .toString(counts) + " does not split the pool of " + pool.length + " items into n-grams");
            }
            for (int p = start; p < end; p += n, gram++) {
                if (gram >= indexes.length) {
                    throw new InvalidModelException("TfIdfVectorizer attribute 'ngram_indexes' has fewer entries than "
                            + "the pool has n-grams");
                }
                Node at = root;
                for (int k = 0; k < n; k++) {
                    at = at.next.computeIfAbsent(pool[p + k], key -> new Node());
                }
                at.index = (int) indexes[gram];
                outSize = Math.max(outSize, at.index + 1);
            }
        }
        int width = outSize;
        if (weights != null && weights.length < width) {
            throw new InvalidModelException("TfIdfVectorizer attribute 'weights' has " + weights.length
                    + " values for " + width + " outputs");
        }
        return (in, ctx) -> {
            Tensor x = in[0];
            long[] xs = x.shape();
            if (xs.length != 1 && xs.length != 2) {
                throw new InvalidArgumentException("TfIdfVectorizer input 'X' must have rank 1 or 2, not "
                        + Tensor.shapeString(xs));
            }
            long[] tokens = tokens(x, tokenIds);
            int rows = xs.length == 1 ? 1 : (int) xs[0];
            int cols = (int) xs[xs.length - 1];
            long[] os = xs.length == 1 ? new long[] {width} : new long[] {rows, width};
            float[] y = new float[Tensor.checkedElementCount(os)];
            for (int r = 0; r < rows; r++) {
                count(tokens, r * cols, cols, root, minGram, maxGram, maxSkip, y, r * width);
            }
            for (int i = 0; i < y.length; i++) {
                if (mode == Mode.TF || y[i] == 0) {
                    continue;
                }
                float w = weights == null ? 1 : weights[i % width];
                y[i] = mode == Mode.IDF ? w : y[i] * w;
            }
            return new Tensor[] {Tensor.of(ElementType.FLOAT, os, y)};
        };
    }

    private static long[] tokens(Tensor x, Map<String, Long> tokenIds) {
        switch (x.type()) {
            case INT64:
                return x.longs();
            case INT32: {
                int[] v = x.ints();
                long[] t = new long[v.length];
                for (int i = 0; i < v.length; i++) {
                    t[i] = v[i];
                }
                return t;
            }
            case STRING: {
                String[] v = x.strings();
                long[] t = new long[v.length];
                for (int i = 0; i < v.length; i++) {
                    t[i] = tokenIds.getOrDefault(v[i], -1L);
                }
                return t;
            }
            default:
                throw new InvalidArgumentException("TfIdfVectorizer input 'X' must be int32, int64 or string, not "
                        + x.type());
        }
    }

    private static void count(long[] t, int from, int len, Node root, int minGram, int maxGram, int maxSkip,
            float[] y, int out) {
        int end = from + len;
        int smallest = minGram;
        for (int skip = 0; skip <= maxSkip; skip++) {
            int distance = skip + 1;
            for (int start = from; start < end; start++) {
                if (start + (long) distance * (smallest - 1) >= end) {
                    break;
                }
                Node at = root;
                int item = start;
                for (int n = 1; n <= maxGram && item < end; n++, item += distance) {
                    at = at.next.get(t[item]);
                    if (at == null) {
                        break;
                    }
                    if (n >= smallest && at.index >= 0) {
                        y[out + at.index]++;
                    }
                }
            }
            if (smallest == 1) {
                // unigrams do not depend on the skip: count them at the first distance only
                smallest = 2;
                if (smallest > maxGram) {
                    break;
                }
            }
        }
    }
}
