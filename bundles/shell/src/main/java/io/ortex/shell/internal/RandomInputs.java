package io.ortex.shell.internal;

import io.ortex.api.ElementType;
import io.ortex.api.HalfFloats;
import io.ortex.api.InvalidArgumentException;
import io.ortex.api.Names;
import io.ortex.api.Tensor;
import io.ortex.api.TensorInfo;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * Makes seeded random inputs that fit a model's declared inputs. Floats are uniform in [-1, 1); integers are 0 or 1
 * so that they are valid as indices, masks and ids; strings are short words. Symbolic dimensions take the size
 * given with {@code --shape}, otherwise 1.
 */
public final class RandomInputs {
    private RandomInputs() {
    }

    /**
     * Makes one input.
     *
     * @param info the declared input
     * @param shapes sizes given by the user, by input name
     * @param random the random source
     * @return the tensor
     */
    public static Tensor make(TensorInfo info, Map<String, long[]> shapes, SplittableRandom random) {
        long[] shape = shapes.get(info.name());
        if (shape == null) {
            if (!info.hasShape()) {
                throw new UsageException("input " + Names.quote(info.name())
                        + " has no declared shape: give it with --shape "
                        + info.name() + "=AxB");
            }
            shape = info.dims();
            for (int i = 0; i < shape.length; i++) {
                if (shape[i] < 0) {
                    shape[i] = 1;
                }
            }
        }
        ElementType type = info.type() == null ? ElementType.FLOAT : info.type();
        try {
            return fill(type, shape, Tensor.checkedElementCount(shape), random);
        } catch (InvalidArgumentException e) {
            throw new InvalidArgumentException("input " + Names.quote(info.name()) + ": " + e.getMessage());
        } catch (OutOfMemoryError e) {
            throw new InvalidArgumentException("input " + Names.quote(info.name()) + " of shape "
                    + Tensor.shapeString(shape)
                    + " is too large to allocate in this JVM");
        }
    }

    private static Tensor fill(ElementType type, long[] shape, int n, SplittableRandom random) {
        switch (type) {
            case FLOAT: {
                float[] a = new float[n];
                for (int i = 0; i < n; i++) {
                    a[i] = (float) (random.nextDouble() * 2 - 1);
                }
                return Tensor.ofFloats(a, shape);
            }
            case DOUBLE: {
                double[] a = new double[n];
                for (int i = 0; i < n; i++) {
                    a[i] = random.nextDouble() * 2 - 1;
                }
                return Tensor.ofDoubles(a, shape);
            }
            case FLOAT16: case BFLOAT16: {
                short[] a = new short[n];
                for (int i = 0; i < n; i++) {
                    float v = (float) (random.nextDouble() * 2 - 1);
                    a[i] = type == ElementType.FLOAT16 ? HalfFloats.floatToFloat16(v) : HalfFloats.floatToBfloat16(v);
                }
                return Tensor.of(type, shape, a);
            }
            case BOOL: {
                boolean[] a = new boolean[n];
                for (int i = 0; i < n; i++) {
                    a[i] = random.nextBoolean();
                }
                return Tensor.ofBooleans(a, shape);
            }
            case STRING: {
                String[] a = new String[n];
                for (int i = 0; i < n; i++) {
                    a[i] = "w" + random.nextInt(100);
                }
                return Tensor.ofStrings(a, shape);
            }
            default: {
                Tensor zeros = Tensor.zeros(type, shape);
                Object data = zeros.data();
                for (int i = 0; i < n; i++) {
                    int bit = random.nextInt(2);
                    if (data instanceof long[] l) {
                        l[i] = bit;
                    } else if (data instanceof int[] a) {
                        a[i] = bit;
                    } else if (data instanceof short[] s) {
                        s[i] = (short) bit;
                    } else if (data instanceof byte[] b) {
                        b[i] = (byte) bit;
                    }
                }
                return zeros;
            }
        }
    }

    /**
     * Parses a shape written {@code AxBxC} ({@code scalar} or empty for rank 0).
     *
     * @param text the text
     * @param option the option it came from, for messages
     * @return the dimensions
     */
    public static long[] parseShape(String text, String option) {
        if (text.isEmpty() || text.equals("scalar")) {
            return new long[0];
        }
        String[] parts = text.split("x", -1);
        long[] dims = new long[parts.length];
        for (int i = 0; i < parts.length; i++) {
            try {
                dims[i] = Long.parseLong(parts[i].trim());
            } catch (NumberFormatException e) {
                throw new UsageException(option + " needs a shape like 1x3x224x224, got " + Names.quote(text));
            }
            if (dims[i] < 0) {
                throw new UsageException(option + " has a negative dimension in " + Names.quote(text));
            }
        }
        return dims;
    }
}
