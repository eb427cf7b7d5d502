package io.ortex.ep.cpu.ops.nn;

import io.ortex.api.ElementType;
import io.ortex.api.InvalidArgumentException;
import io.ortex.api.InvalidModelException;
import io.ortex.api.Tensor;
import io.ortex.api.spi.KernelContext;
import io.ortex.ep.cpu.KernelFactory;
import io.ortex.ep.cpu.ops.support.FloatData;
import io.ortex.ep.cpu.ops.support.Values;

/**
 * InstanceNormalization and GroupNormalization on {@code (N, C, D1, ...)} inputs. InstanceNorm normalizes each
 * (sample, channel) over its spatial elements, with per-channel scale and B. GroupNorm normalizes each (sample,
 * group of C/num_groups channels); its scale and bias are per channel from opset 21 and per group in opset 18
 * (where a per-channel scale, as some exporters write, is accepted too).
 */
final class ChannelNormKernels {
    private ChannelNormKernels() {
    }

    /**
     * Gives the InstanceNormalization factory.
     *
     * @return the factory
     */
    static KernelFactory instanceNorm() {
        return node -> {
            double epsilon = node.floatAttr("epsilon", 1e-5f);
            return (in, ctx) -> {
                Tensor x = in[0];
                long[] shape = checkInput(x, "InstanceNormalization");
                int c = (int) shape[1];
                int samples = (int) shape[0];
                int spatial = spatial(shape);
                Tensor scale = NormSupport.required(in, 1, "InstanceNormalization input scale");
                Tensor bias = NormSupport.required(in, 2, "InstanceNormalization input B");
                NormSupport.requireCount(scale, c, "InstanceNormalization input scale");
                NormSupport.requireCount(bias, c, "InstanceNormalization input B");
                SegmentNorm norm = new SegmentNorm(samples * c, 1, spatial, c, 1, true, epsilon);
                return new Tensor[] {apply(norm, x, scale, bias, ctx)};
            };
        };
    }

    /**
     * Gives the GroupNormalization factory.
     *
     * @param perChannel whether scale and bias are per channel (opset 21 on) rather than per group
     * @return the factory
     */
    static KernelFactory groupNorm(boolean perChannel) {
        return node -> {
            double epsilon = node.floatAttr("epsilon", 1e-5f);
            long groupsAttr = node.intAttr("num_groups", -1);
            if (groupsAttr <= 0) {
                throw new InvalidModelException("GroupNormalization attribute 'num_groups' is missing or not positive");
            }
            return (in, ctx) -> {
                Tensor x = in[0];
                long[] shape = checkInput(x, "GroupNormalization");
                int c = (int) shape[1];
                int groups = (int) groupsAttr;
                if (c % groups != 0) {
                    throw new InvalidArgumentException("GroupNormalization attribute 'num_groups' (" + groups
                            + ") does not divide the " + c + " channels");
                }
                int samples = (int) shape[0];
                int spatial = spatial(shape);
                int perGroup = c / groups;
                Tensor scale = NormSupport.required(in, 1, "GroupNormalization input scale");
                Tensor bias = NormSupport.required(in, 2, "GroupNormalization input bias");
                boolean channelParams = perChannel || (scale.size() == c && bias.size() == c && c != groups);
                int count = channelParams ? c : groups;
                NormSupport.requireCount(scale, count, "GroupNormalization input scale");
                NormSupport.requireCount(bias, count, "GroupNormalization input bias");
                SegmentNorm norm = channelParams
                        ? new SegmentNorm(samples * groups, perGroup, spatial, groups, perGroup, true, epsilon)
                        : new SegmentNorm(samples * groups, 1, perGroup * spatial, groups, 1, true, epsilon);
                return new Tensor[] {apply(norm, x, scale, bias, ctx)};
            };
        };
    }

    private static Tensor apply(SegmentNorm norm, Tensor x, Tensor scale, Tensor bias, KernelContext ctx) {
        if (x.type() == ElementType.DOUBLE) {
            return Tensor.ofDoubles(norm.run(x.doubles(), Values.toDoubles(scale), Values.toDoubles(bias), null,
                    null, ctx), x.shape());
        }
        return Values.fromFloats(x.type(), x.shape(), norm.run(Values.toFloats(x), Values.toFloats(scale),
                Values.toFloats(bias), null, null, ctx));
    }

    private static long[] checkInput(Tensor x, String op) {
        FloatData.requireFloating(x, op + " input");
        if (x.rank() < 2) {
            throw new InvalidArgumentException(op + " input must have shape (N, C, ...), got "
                    + Tensor.shapeString(x.shape()));
        }
        return x.shape();
    }

    private static int spatial(long[] shape) {
        long s = 1;
        for (int i = 2; i < shape.length; i++) {
            s *= shape[i];
        }
        return (int) s;
    }
}
