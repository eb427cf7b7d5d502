package io.ortex.ep.cpu.ops.objectdetection;

import io.ortex.api.InvalidArgumentException;
import io.ortex.api.Tensor;
import io.ortex.api.spi.NodeView;
import io.ortex.ep.cpu.CpuKernel;
import io.ortex.ep.cpu.ops.support.Shapes;
import io.ortex.ep.cpu.ops.support.Values;
import java.util.ArrayList;
import java.util.List;

/**
 * NonMaxSuppression (opsets 10 to 11): per batch and class, the boxes whose score is above
 * {@code score_threshold} are taken in descending score order (ties by box index), and a box is kept when its IoU
 * with every box kept so far is at most {@code iou_threshold}, up to {@code max_output_boxes_per_class} (0: none).
 * Boxes are corners {@code [y1, x1, y2, x2]} in any order, or centres {@code [xc, yc, w, h]} when
 * {@code center_point_box} is 1. The output lists {@code [batch, class, box]} as int64.
 */
final class NonMaxSuppressionKernel {
    private NonMaxSuppressionKernel() {
    }

    /**
     * Makes the kernel.
     *
     * @param node the node
     * @return the kernel
     */
    static CpuKernel create(NodeView node) {
        boolean center = node.intAttr("center_point_box", 0) != 0;
        return (in, ctx) -> {
            Tensor boxes = in[0];
            Tensor scores = in[1];
            Tensor maxOut = Shapes.optional(in, 2);
            Tensor iouT = Shapes.optional(in, 3);
            Tensor scoreT = Shapes.optional(in, 4);
            long max = maxOut == null || maxOut.size() == 0 ? 0 : maxOut.getLong(0);
            double iouMax = iouT == null || iouT.size() == 0 ? 0 : iouT.getDouble(0);
            boolean useScore = scoreT != null && scoreT.size() > 0;
            double minScore = useScore ? scoreT.getDouble(0) : 0;
            long[] bs = boxes.shape();
            long[] ss = scores.shape();
            if (bs.length != 3 || bs[2] != 4 || ss.length != 3 || ss[0] != bs[0] || ss[2] != bs[1]) {
                throw new InvalidArgumentException("boxes must be (B, N, 4) and scores (B, C, N), got "
                        + Tensor.shapeString(bs) + " and " + Tensor.shapeString(ss));
            }
            int batches = (int) bs[0];
            int n = (int) bs[1];
            int classes = (int) ss[1];
            double[] b = Values.toDoubles(boxes);
            double[] s = Values.toDoubles(scores);
            List<long[]> selected = new ArrayList<>();
            Integer[] order = new Integer[n];
            int[] kept = new int[n];
            for (int batch = 0; batch < batches; batch++) {
                for (int c = 0; c < classes; c++) {
                    int sBase = (batch * classes + c) * n;
                    int count = 0;
                    for (int i = 0; i < n; i++) {
                        if (!useScore || s[sBase + i] > minScore) {
                            order[count++] = i;
                        }
                    }
                    java.util.Arrays.sort(order, 0, count, (x, y) -> {
                        int cmp = Double.compare(s[sBase + y], s[sBase + x]);
                        return cmp != 0 ? cmp : Integer.compare(x, y);
                    });
                    int nKept = 0;
                    for (int k = 0; k < count && nKept < max; k++) {
                        int i = order[k];
                        boolean keep = true;
                        for (int j = 0; j < nKept && keep; j++) {
                            keep = iou(b, (batch * n + i) * 4, (batch * n + kept[j]) * 4, center) <= iouMax;
                        }
                        if (keep) {
                            kept[nKept++] = i;
                            selected.add(new long[] {batch, c, i});
                        }
                    }
                }
            }
            long[] out = new long[selected.size() * 3];
            for (int i = 0; i < selected.size(); i++) {
                System.arraycopy(selected.get(i), 0, out, i * 3, 3);
            }
            return new Tensor[] {Tensor.ofLongs(out, selected.size(), 3)};
        };
    }

    private static double iou(double[] b, int p, int q, boolean center) {
        double[] u = corners(b, p, center);
        double[] v = corners(b, q, center);
        double ih = Math.min(u[2], v[2]) - Math.max(u[0], v[0]);
        double iw = Math.min(u[3], v[3]) - Math.max(u[1], v[1]);
        if (ih <= 0 || iw <= 0) {
            return 0;
        }
        double inter = ih * iw;
        double union = (u[2] - u[0]) * (u[3] - u[1]) + (v[2] - v[0]) * (v[3] - v[1]) - inter;
        return union <= 0 ? 0 : inter / union;
    }

    /** The box as {@code [ymin, xmin, ymax, xmax]}. */
    private static double[] corners(double[] b, int p, boolean center) {
        if (center) {
            double xc = b[p];
            double yc = b[p + 1];
            double w = b[p + 2] / 2;
            double h = b[p + 3] / 2;
            return new double[] {yc - h, xc - w, yc + h, xc + w};
        }
        return new double[] {Math.min(b[p], b[p + 2]), Math.min(b[p + 1], b[p + 3]), Math.max(b[p], b[p + 2]),
                Math.max(b[p + 1], b[p + 3])};
    }
}
