package io.ortex.ep.cpu.ops.math;

import io.ortex.api.InvalidArgumentException;
import io.ortex.api.Tensor;
import io.ortex.api.spi.NodeView;
import io.ortex.ep.cpu.CpuKernel;
import io.ortex.ep.cpu.ops.support.FloatData;
import io.ortex.ep.cpu.ops.support.Shapes;
import io.ortex.ep.cpu.ops.support.Values;
import java.util.Arrays;

/** Det (opset 11): the determinant of each square matrix in the last two axes. */
final class DetKernel {
    private DetKernel() {
    }

    /**
     * Det: the determinants of the square matrices in the last two axes, by LU decomposition with partial
     * pivoting in double.
     *
     * @param node the node
     * @return the kernel
     */
    static CpuKernel create(NodeView node) {
        return (in, ctx) -> {
            Tensor x = in[0];
            FloatData.requireFloating(x, "input");
            long[] s = x.shape();
            if (s.length < 2 || s[s.length - 1] != s[s.length - 2]) {
                throw new InvalidArgumentException("Det needs square matrices in the last two axes, got shape "
                        + Tensor.shapeString(s));
            }
            int m = (int) s[s.length - 1];
            long[] os = java.util.Arrays.copyOf(s, s.length - 2);
            int count = Shapes.product(os, 0, os.length);
            double[] v = Values.toDoubles(x);
            double[] out = new double[count];
            double[] a = new double[m * m];
            for (int b = 0; b < count; b++) {
                System.arraycopy(v, b * m * m, a, 0, m * m);
                out[b] = luDeterminant(a, m);
            }
            return new Tensor[] {Values.fromDoubles(x.type(), os, out)};
        };
    }

    /** The determinant of an {@code m x m} row-major matrix, destroying it. */
    private static double luDeterminant(double[] a, int m) {
        double det = 1;
        for (int col = 0; col < m; col++) {
            int pivot = col;
            for (int r = col + 1; r < m; r++) {
                if (Math.abs(a[r * m + col]) > Math.abs(a[pivot * m + col])) {
                    pivot = r;
                }
            }
            if (a[pivot * m + col] == 0) {
                return 0;
            }
            if (pivot != col) {
                for (int k = 0; k < m; k++) {
                    double t = a[col * m + k];
                    a[col * m + k] = a[pivot * m + k];
                    a[pivot * m + k] = t;
                }
                det = -det;
            }
            double d = a[col * m + col];
            det *= d;
            for (int r = col + 1; r < m; r++) {
                double f = a[r * m + col] / d;
                for (int k = col; k < m; k++) {
                    a[r * m + k] -= f * a[col * m + k];
                }
            }
        }
        return det;
    }
}
