package io.ortex.onnx;

import io.ortex.api.ElementType;
import io.ortex.api.Names;
import io.ortex.api.Tensor;
import java.util.Arrays;

/**
 * Compares an actual tensor with an expected one the way ONNX's backend test runner does: element type and shape
 * must match exactly, strings and integers must be equal, and floating-point elements must satisfy
 * {@code |actual - expected| <= atol + rtol * |expected|}, with NaN equal to NaN and infinities equal to themselves.
 */
public final class TensorComparison {
    private TensorComparison() {
    }

    /**
     * Compares two tensors.
     *
     * @param expected the reference
     * @param actual the result
     * @param rtol the relative tolerance for floating-point elements
     * @param atol the absolute tolerance for floating-point elements
     * @return {@code null} when they match, otherwise the first difference, described
     */
    public static String difference(Tensor expected, Tensor actual, double rtol, double atol) {
        if (actual == null) {
            return "no output";
        }
        if (expected.type() != actual.type()) {
            return "type " + actual.type() + ", expected " + expected.type();
        }
        if (!Arrays.equals(expected.shape(), actual.shape())) {
            return "shape " + Tensor.shapeString(actual.shape()) + ", expected " + Tensor.shapeString(expected.shape());
        }
        ElementType type = expected.type();
        int n = expected.size();
        if (type == ElementType.STRING) {
            String[] e = expected.strings();
            String[] a = actual.strings();
            for (int i = 0; i < n; i++) {
                if (!e[i].equals(a[i])) {
                    return "element " + i + " is " + Names.quote(a[i]) + ", expected " + Names.quote(e[i]);
                }
            }
            return null;
        }
        if (!type.isFloatingPoint() && !type.isNarrowFloat()) {
            for (int i = 0; i < n; i++) {
                if (expected.getLong(i) != actual.getLong(i)) {
                    return "element " + i + " is " + actual.getLong(i) + ", expected " + expected.getLong(i);
                }
            }
            return null;
        }
        int bad = 0;
        int first = -1;
        double worst = 0;
        for (int i = 0; i < n; i++) {
            double e = expected.getDouble(i);
            double a = actual.getDouble(i);
            if (Double.isNaN(e) || Double.isNaN(a)) {
                if (Double.isNaN(e) != Double.isNaN(a)) {
                    bad++;
                    first = first < 0 ? i : first;
                }
                continue;
            }
            if (e == a) {
                continue;
            }
            double err = Math.abs(a - e);
            // an infinity only matches itself: rtol * |inf| would otherwise accept any finite value
            if (Double.isInfinite(e) || Double.isInfinite(a) || !(err <= atol + rtol * Math.abs(e))) {
                bad++;
                if (first < 0) {
                    first = i;
                }
                worst = Math.max(worst, err);
            }
        }
        if (bad == 0) {
            return null;
        }
        return bad + " of " + n + " elements differ; element " + first + " is " + actual.getDouble(first)
                + ", expected " + expected.getDouble(first) + " (largest error " + (float) worst + ")";
    }
}
