package io.ortex.ep.cpu.ops.nn;

import io.ortex.api.ElementType;
import io.ortex.api.InvalidArgumentException;
import io.ortex.api.Tensor;
import io.ortex.api.spi.NodeView;
import io.ortex.ep.cpu.CpuKernel;
import io.ortex.ep.cpu.ops.support.FloatData;
import io.ortex.ep.cpu.ops.support.Shapes;
import io.ortex.ep.cpu.ops.support.Values;

/**
 * Col2Im (opset 18): the inverse of im2col. {@code input [N, C * prod(block_shape), L]} holds, for each of the
 * {@code L} sliding-block positions over the padded image of {@code image_shape}, the block's values; they are
 * summed back into {@code [N, C, image_shape...]} (overlapping blocks add up), with {@code strides},
 * {@code dilations} and {@code pads} as in Conv. Any number of spatial dimensions; float types (float32 directly,
 * float64, float16 and bfloat16 through float).
 */
final class Col2ImKernel {
    private Col2ImKernel() {
    }

    /**
     * Makes the kernel.
     *
     * @param node the node
     * @return the kernel
     */
    static CpuKernel create(NodeView node) {
        long[] dilationsAttr = node.intsAttr("dilations", null);
        long[] padsAttr = node.intsAttr("pads", null);
        long[] stridesAttr = node.intsAttr("strides", null);
        return (in, ctx) -> {
            Tensor x = in[0];
            FloatData.requireFloating(x, "Col2Im input 'input'");
            long[] image = Shapes.longs(in[1], "image_shape");
            long[] block = Shapes.longs(in[2], "block_shape");
            int dims = image.length;
            if (block.length != dims) {
                throw new InvalidArgumentException("Col2Im inputs 'image_shape' and 'block_shape' differ in length: "
                        + dims + " and " + block.length);
            }
            long[] dil = orOnes(dilationsAttr, dims, "dilations");
            long[] str = orOnes(stridesAttr, dims, "strides");
            long[] pads = padsAttr == null ? new long[2 * dims] : padsAttr;
            if (pads.length != 2 * dims) {
                throw new InvalidArgumentException("Col2Im attribute 'pads' must have " + (2 * dims) + " values");
            }
            long[] xs = x.shape();
            int kernel = Shapes.product(block, 0, dims);
            if (xs.length != 3 || kernel == 0 || xs[1] % kernel != 0) {
                throw new InvalidArgumentException("Col2Im input 'input' has shape " + Tensor.shapeString(xs)
                        + ", expected [N, C * " + kernel + ", L]");
            }
            int[] blocks = new int[dims];
            long positions = 1;
            for (int i = 0; i < dims; i++) {
                long span = dil[i] * (block[i] - 1) + 1;
                blocks[i] = (int) ((image[i] + pads[i] + pads[i + dims] - span) / str[i] + 1);
                positions *= blocks[i];
            }
            if (positions != xs[2]) {
                throw new InvalidArgumentException("Col2Im input 'input' has " + xs[2] + " block positions, the "
                        + "image, block, pads, strides and dilations give " + positions);
            }
            int n = (int) xs[0];
            int channels = (int) (xs[1] / kernel);
            long[] os = new long[dims + 2];
            os[0] = n;
            os[1] = channels;
            System.arraycopy(image, 0, os, 2, dims);
            int imageSize = Shapes.product(image, 0, dims);
            float[] src = Values.toFloats(x);
            float[] y = new float[Tensor.checkedElementCount(os)];
            int cols = (int) positions;
            ctx.parallelFor(n * channels, 1, (from, to) -> {
                int[] k = new int[dims];
                int[] l = new int[dims];
                for (int plane = from; plane < to; plane++) {
                    int out = plane * imageSize;
                    for (int kf = 0; kf < kernel; kf++) {
                        unflatten(kf, block, k);
                        int row = (plane * kernel + kf) * cols;
                        java.util.Arrays.fill(l, 0);
                        for (int col = 0; col < cols; col++) {
                            int offset = 0;
                            boolean inside = true;
                            for (int i = 0; i < dims && inside; i++) {
                                long pos = l[i] * str[i] - pads[i] + k[i] * dil[i];
                                inside = pos >= 0 && pos < image[i];
                                offset = (int) (offset * image[i] + pos);
                            }
                            if (inside) {
                                y[out + offset] += src[row + col];
                            }
                            for (int i = dims - 1; i >= 0; i--) {
                                if (++l[i] < blocks[i]) {
                                    break;
                                }
                                l[i] = 0;
                            }
                        }
                    }
                }
            });
            return new Tensor[] {x.type() == ElementType.FLOAT ? Tensor.of(x.type(), os, y)
                    : Values.fromFloats(x.type(), os, y)};
        };
    }

    private static void unflatten(int flat, long[] shape, int[] index) {
        for (int i = shape.length - 1; i >= 0; i--) {
            index[i] = (int) (flat % shape[i]);
            flat /= (int) shape[i];
        }
    }

    private static long[] orOnes(long[] v, int dims, String name) {
        if (v == null) {
            long[] ones = new long[dims];
            java.util.Arrays.fill(ones, 1);
            return ones;
        }
        if (v.length != dims) {
            throw new InvalidArgumentException("Col2Im attribute '" + name + "' must have " + dims + " values");
        }
        return v;
    }
}
