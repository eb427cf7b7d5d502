package io.ortex.ep.cpu.ops.nn;

import static io.ortex.ep.cpu.KernelHarness.runParallel;
import static io.ortex.ep.cpu.TensorChecks.assertClose;
import static io.ortex.ep.cpu.TensorChecks.toDouble;
import static io.ortex.testing.Attributes.attr;
import static io.ortex.testing.Attributes.ints;
import static io.ortex.testing.OneNodeModel.run;
import static io.ortex.testing.OneNodeModel.run1;
import static io.ortex.testing.RandomFloats.uniform;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.ortex.api.ElementType;
import io.ortex.api.OrtexException;
import io.ortex.api.Tensor;
import io.ortex.onnx.proto.Onnx;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** Unit tests of Conv, ConvTranspose, pooling and MaxUnpool, run through the kernels on one-node models. */
class NnOpsTest {
    private static final Random RANDOM = new Random(42);

    private static Tensor random(long... shape) {
        return uniform(RANDOM, shape);
    }

    // ---------------------------------------------------------------- Conv and ConvTranspose

    /** Float32 (im2col + GEMM, constant and runtime weights, threaded) against the direct float64 loop. */
    private static void checkConvAgainstDouble(String op, Tensor x, Tensor w, Tensor b, Onnx.AttributeProto... attrs) {
        Tensor[] in = b == null ? new Tensor[] {x, w} : new Tensor[] {x, w, b};
        Tensor[] din = b == null ? new Tensor[] {toDouble(x), toDouble(w)}
                : new Tensor[] {toDouble(x), toDouble(w), toDouble(b)};
        Tensor expected = run1(op, 22, din, attrs);
        assertEquals(ElementType.DOUBLE, expected.type());
        assertClose(expected, run1(op, 22, in, attrs), 1e-5);
        assertClose(expected, runParallel(op, 22, in, new int[] {1, 2}, attrs), 1e-5);
    }

    @Test
    void convMatchesDirectLoopForGroupsStridesDilationsAndPads() {
        checkConvAgainstDouble("Conv", random(2, 4, 9, 11), random(6, 2, 3, 2), random(6), attr("group", 2),
                ints("strides", 2, 1), ints("dilations", 1, 2), ints("pads", 1, 0, 2, 1));
        checkConvAgainstDouble("Conv", random(1, 3, 20, 20), random(3, 1, 3, 3), null, attr("group", 3),
                attr("auto_pad", "SAME_LOWER"), ints("strides", 2, 2));
        checkConvAgainstDouble("Conv", random(1, 5, 17, 19), random(7, 5, 1, 1), random(7));
        checkConvAgainstDouble("Conv", random(2, 3, 40), random(4, 3, 5), random(4), ints("pads", 2, 2));
        checkConvAgainstDouble("Conv", random(1, 2, 5, 6, 7), random(3, 2, 2, 3, 2), random(3),
                ints("pads", 1, 0, 1, 0, 1, 1), ints("strides", 1, 2, 2));
        checkConvAgainstDouble("Conv", random(1, 2, 30, 30), random(4, 2, 3, 3), null,
                attr("auto_pad", "SAME_UPPER"));
    }

    @Test
    void convHandlesEmptyBatchAndRejectsChannelMismatch() {
        Tensor y = run1("Conv", 11, new Tensor[] {random(0, 2, 4, 4), random(3, 2, 3, 3)});
        assertArrayEquals(new long[] {0, 3, 2, 2}, y.shape());
        assertThrows(OrtexException.class, () -> run1("Conv", 11, new Tensor[] {random(1, 3, 4, 4),
            random(3, 2, 3, 3)}));
    }

    @Test
    void convTransposeMatchesDirectLoop() {
        checkConvAgainstDouble("ConvTranspose", random(2, 4, 5, 6), random(4, 3, 3, 2), random(6),
                attr("group", 2), ints("strides", 2, 3), ints("output_padding", 1, 0),
                ints("pads", 1, 0, 0, 1), ints("dilations", 1, 2));
        checkConvAgainstDouble("ConvTranspose", random(1, 3, 17, 17), random(3, 2, 2, 2), null,
                ints("strides", 2, 2));
        checkConvAgainstDouble("ConvTranspose", random(1, 2, 7), random(2, 2, 3), random(2),
                ints("output_shape", 15), ints("strides", 2));
    }

    @Test
    void convTransposeOutputShapeSetsThePads() {
        // stride 2, kernel 3, input 3: the full output is 7; output_shape 6 drops one row at the end (NOTSET)
        Tensor x = Tensor.ofFloats(new float[] {1, 2, 3}, 1, 1, 3);
        Tensor w = Tensor.ofFloats(new float[] {1, 1, 1}, 1, 1, 3);
        Tensor full = run1("ConvTranspose", 11, new Tensor[] {x, w}, ints("strides", 2));
        assertArrayEquals(new float[] {1, 1, 3, 2, 5, 3, 3}, full.floats());
        Tensor shaped = run1("ConvTranspose", 11, new Tensor[] {x, w}, ints("strides", 2),
                ints("output_shape", 6));
        assertArrayEquals(new float[] {1, 3, 2, 5, 3, 3}, shaped.floats());
    }

    // ---------------------------------------------------------------- pooling

    @Test
    void maxPoolReturnsIndicesInBothStorageOrders() {
        Tensor x = Tensor.ofFloats(new float[] {1, 5, 2, 3, 4, 9, 0, 8, 7, 6, 2, 1}, 1, 1, 3, 4);
        List<Tensor> rowMajor = run("MaxPool", 12, new Tensor[] {x}, 2, new int[0], ints("kernel_shape", 2, 2));
        assertArrayEquals(new long[] {1, 1, 2, 3}, rowMajor.get(0).shape());
        assertArrayEquals(new float[] {9, 9, 8, 9, 9, 8}, rowMajor.get(0).floats());
        assertArrayEquals(new long[] {5, 5, 7, 5, 5, 7}, rowMajor.get(1).longs());
        List<Tensor> colMajor = run("MaxPool", 12, new Tensor[] {x}, 2, new int[0], ints("kernel_shape", 2, 2),
                attr("storage_order", 1));
        // element (h, w) is h + w * 3 in column-major order: 9 at (1, 1) is 4, 8 at (1, 3) is 10
        assertArrayEquals(new long[] {4, 4, 10, 4, 4, 10}, colMajor.get(1).longs());
    }

    @Test
    void maxPoolKeepsIntegerTypesAndCeilMode() {
        byte[] v = {1, (byte) 200, 3, 4, 5, 6, 7, 8, 9};
        Tensor x = Tensor.of(ElementType.UINT8, new long[] {1, 1, 3, 3}, v);
        Tensor y = run1("MaxPool", 12, new Tensor[] {x}, ints("kernel_shape", 2, 2), ints("strides", 2, 2),
                attr("ceil_mode", 1));
        assertEquals(ElementType.UINT8, y.type());
        assertArrayEquals(new long[] {1, 1, 2, 2}, y.shape());
        assertArrayEquals(new long[] {200, 6, 8, 9}, new long[] {y.getLong(0), y.getLong(1), y.getLong(2),
            y.getLong(3)});
    }

    @Test
    void averagePoolCountsPaddingOnlyWhenAsked() {
        Tensor x = Tensor.ofFloats(new float[] {1, 2, 3, 4}, 1, 1, 2, 2);
        Tensor excl = run1("AveragePool", 11, new Tensor[] {x}, ints("kernel_shape", 2, 2),
                ints("pads", 1, 1, 0, 0));
        assertArrayEquals(new float[] {1, 1.5f, 2, 2.5f}, excl.floats());
        Tensor incl = run1("AveragePool", 11, new Tensor[] {x}, ints("kernel_shape", 2, 2),
                ints("pads", 1, 1, 0, 0), attr("count_include_pad", 1));
        assertArrayEquals(new float[] {0.25f, 0.75f, 1, 2.5f}, incl.floats());
    }

    @Test
    void globalPoolsReduceAllSpatialAxes() {
        Tensor x = Tensor.ofFloats(new float[] {1, 2, 3, 4, -1, -2, -3, -4}, 1, 2, 2, 1, 2);
        Tensor avg = run1("GlobalAveragePool", 11, new Tensor[] {x});
        assertArrayEquals(new long[] {1, 2, 1, 1, 1}, avg.shape());
        assertArrayEquals(new float[] {2.5f, -2.5f}, avg.floats());
        assertArrayEquals(new float[] {4, -1}, run1("GlobalMaxPool", 11, new Tensor[] {x}).floats());
        Tensor lp = run1("GlobalLpPool", 11, new Tensor[] {Tensor.ofFloats(new float[] {3, 4}, 1, 1, 2)});
        assertArrayEquals(new float[] {5}, lp.floats());
    }

    @Test
    void maxUnpoolInvertsMaxPool() {
        Tensor x = Tensor.ofFloats(new float[] {1, 5, 2, 3, 4, 9, 0, 8, 7, 6, 2, 1, 3, 3, 3, 3}, 1, 1, 4, 4);
        List<Tensor> pooled = run("MaxPool", 12, new Tensor[] {x}, 2, new int[0], ints("kernel_shape", 2, 2),
                ints("strides", 2, 2));
        Tensor up = run1("MaxUnpool", 11, new Tensor[] {pooled.get(0), pooled.get(1)}, ints("kernel_shape", 2, 2),
                ints("strides", 2, 2));
        assertArrayEquals(new long[] {1, 1, 4, 4}, up.shape());
        assertArrayEquals(new float[] {0, 0, 0, 0, 0, 9, 0, 8, 7, 0, 0, 0, 0, 0, 3, 0}, up.floats());
    }
}
