package io.ortex.ep.cpu.ops.nn;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ortex.api.Tensor;
import io.ortex.testing.OneNode;
import io.ortex.onnx.proto.Onnx;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * The float32 shortcuts of the pooling kernels (MaxPool without indices, GlobalAveragePool) against the float64
 * path they bypass, through one-node models, on the implementation this JVM selects (the build runs this class again
 * without the Vector API).
 */
class CnnKernelsTest {
    private static Tensor random(long seed, long... shape) {
        SplittableRandom r = new SplittableRandom(seed);
        float[] f = new float[Tensor.checkedElementCount(shape)];
        for (int i = 0; i < f.length; i++) {
            f[i] = (float) (r.nextDouble() * 2 - 1);
        }
        return Tensor.ofFloats(f, shape);
    }

    private static Tensor toDouble(Tensor t) {
        double[] d = new double[t.size()];
        for (int i = 0; i < d.length; i++) {
            d[i] = t.floats()[i];
        }
        return Tensor.ofDoubles(d, t.shape());
    }

    private static Onnx.AttributeProto ints(String name, long... v) {
        Onnx.AttributeProto.Builder b = Onnx.AttributeProto.newBuilder().setName(name)
                .setType(Onnx.AttributeProto.AttributeType.INTS);
        for (long x : v) {
            b.addInts(x);
        }
        return b.build();
    }

    @Test
    void maxPoolWithoutIndicesMatchesTheGeneralPath() {
        Onnx.AttributeProto[][] windows = {
            {ints("kernel_shape", 2, 2), ints("strides", 2, 2)},
            {ints("kernel_shape", 3, 3), ints("strides", 2, 2), ints("pads", 1, 1, 1, 1)},
            {ints("kernel_shape", 3, 2), ints("dilations", 2, 1), ints("pads", 0, 1, 2, 0)},
            {ints("kernel_shape", 2, 2), ints("strides", 2, 2), OneNode.intAttr("ceil_mode", 1)}};
        for (Onnx.AttributeProto[] attrs : windows) {
            Tensor x = random(1, 2, 3, 9, 11);
            Tensor want = OneNode.run1("MaxPool", 12, OneNode.in(toDouble(x)), attrs);
            Tensor got = OneNode.run1("MaxPool", 12, OneNode.in(x), attrs);
            assertArrayEquals(want.shape(), got.shape());
            for (int i = 0; i < got.size(); i++) {
                assertEquals((float) want.doubles()[i], got.floats()[i], "MaxPool at " + i);
            }
        }
        // 1-D and 3-D windows
        Tensor x1 = random(2, 1, 2, 17);
        Tensor got1 = OneNode.run1("MaxPool", 12, OneNode.in(x1), ints("kernel_shape", 3), ints("strides", 2));
        Tensor want1 = OneNode.run1("MaxPool", 12, OneNode.in(toDouble(x1)), ints("kernel_shape", 3),
                ints("strides", 2));
        for (int i = 0; i < got1.size(); i++) {
            assertEquals((float) want1.doubles()[i], got1.floats()[i]);
        }
        Tensor x3 = random(3, 1, 2, 4, 5, 6);
        Onnx.AttributeProto k3 = ints("kernel_shape", 2, 2, 2);
        Tensor got3 = OneNode.run1("MaxPool", 12, OneNode.in(x3), k3);
        Tensor want3 = OneNode.run1("MaxPool", 12, OneNode.in(toDouble(x3)), k3);
        for (int i = 0; i < got3.size(); i++) {
            assertEquals((float) want3.doubles()[i], got3.floats()[i]);
        }
    }

    @Test
    void maxPoolOfWindowsInsideThePlaneMatchesTheGeneralPathWithNaNs() {
        Onnx.AttributeProto[][] windows = {
            {ints("kernel_shape", 2, 2), ints("strides", 2, 2)},
            {ints("kernel_shape", 1, 2), ints("strides", 1, 2)},
            {ints("kernel_shape", 2, 2)},
            {ints("kernel_shape", 3, 3), ints("strides", 1, 1)},
            {ints("kernel_shape", 2, 3), ints("strides", 2, 3)}};
        Tensor x = random(4, 1, 3, 20, 37);
        float[] f = x.floats();
        for (int i = 0; i < f.length; i += 7) {
            // NaNs at every position of the windows, first taps among them
            f[i] = Float.NaN;
        }
        for (Onnx.AttributeProto[] attrs : windows) {
            Tensor want = OneNode.run1("MaxPool", 12, OneNode.in(toDouble(x)), attrs);
            Tensor got = OneNode.run1("MaxPool", 12, OneNode.in(x), attrs);
            assertArrayEquals(want.shape(), got.shape());
            int nans = 0;
            for (int i = 0; i < got.size(); i++) {
                assertEquals((float) want.doubles()[i], got.floats()[i], "MaxPool " + attrs[0] + " at " + i);
                nans += Float.isNaN(got.floats()[i]) ? 1 : 0;
            }
            assertTrue(nans > 0 && nans < got.size() / 3, "some windows start with a NaN: " + nans);
        }
    }

    @Test
    void globalAveragePoolMatchesTheGeneralPath() {
        for (long[] shape : new long[][] {{2, 3, 40, 41}, {1, 5, 1, 1}, {1, 2, 7}}) {
            Tensor x = random(4, shape);
            Tensor want = OneNode.run1("GlobalAveragePool", 12, OneNode.in(toDouble(x)));
            Tensor got = OneNode.run1("GlobalAveragePool", 12, OneNode.in(x));
            assertArrayEquals(want.shape(), got.shape());
            for (int i = 0; i < got.size(); i++) {
                assertTrue(Math.abs(want.doubles()[i] - got.floats()[i]) <= 1e-6, "GlobalAveragePool at " + i);
            }
        }
    }
}
