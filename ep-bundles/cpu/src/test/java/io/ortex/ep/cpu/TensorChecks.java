package io.ortex.ep.cpu;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ortex.api.Tensor;

/** Compares kernel outputs with float64 references, for the kernel unit tests. */
public final class TensorChecks {
    private TensorChecks() {
    }

    /**
     * Copies a tensor of any numeric type into float64, to run the same model as a reference.
     *
     * @param t the tensor
     * @return its values as doubles, same shape
     */
    public static Tensor toDouble(Tensor t) {
        double[] d = new double[t.size()];
        for (int i = 0; i < d.length; i++) {
            d[i] = t.getDouble(i);
        }
        return Tensor.ofDoubles(d, t.shape());
    }

    /**
     * Asserts two tensors have the same shape and every element within {@code tol * (1 + |expected|)}.
     *
     * @param expected the reference
     * @param actual the tensor checked
     * @param tol the relative tolerance
     */
    public static void assertClose(Tensor expected, Tensor actual, double tol) {
        assertArrayEquals(expected.shape(), actual.shape(), "shape");
        for (int i = 0; i < expected.size(); i++) {
            double e = expected.getDouble(i);
            double a = actual.getDouble(i);
            assertTrue(Math.abs(e - a) <= tol * (1 + Math.abs(e)), "element " + i + ": expected " + e + ", got " + a);
        }
    }
}
