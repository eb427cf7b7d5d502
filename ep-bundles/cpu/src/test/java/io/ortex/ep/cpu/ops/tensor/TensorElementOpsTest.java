package io.ortex.ep.cpu.ops.tensor;

import static io.ortex.testing.Attributes.attr;
import static io.ortex.testing.Attributes.ints;
import static io.ortex.testing.OneNodeModel.run1;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ortex.api.ElementType;
import io.ortex.api.HalfFloats;
import io.ortex.api.OrtexException;
import io.ortex.api.Tensor;
import io.ortex.onnx.TensorCodec;
import io.ortex.onnx.proto.Onnx;
import org.junit.jupiter.api.Test;

/** Unit tests of Where, Cast, CastLike, Constant and Identity, run through the kernels on one-node models. */
class TensorElementOpsTest {

    private static Tensor[] in(Tensor... t) {
        return t;
    }

    private static Tensor f32(float[] v, long... shape) {
        return Tensor.ofFloats(v, shape);
    }

    @Test
    void whereBroadcastsThreeWaysForAnyType() {
        Tensor c = Tensor.ofBooleans(new boolean[] {true, false}, 2, 1);
        Tensor x = Tensor.ofStrings(new String[] {"x0", "x1", "x2"}, 3);
        Tensor y = Tensor.ofStrings(new String[] {"y"}, 1);
        Tensor r = run1("Where", 16, in(c, x, y));
        assertArrayEquals(new long[] {2, 3}, r.shape());
        assertArrayEquals(new String[] {"x0", "x1", "x2", "y", "y", "y"}, r.strings());
        Tensor f = run1("Where", 16, in(c, f32(new float[] {1, 2}, 1, 2), f32(new float[] {-1}, 1)));
        assertArrayEquals(new float[] {1, 2, -1, -1}, f.floats());
    }

    @Test
    void castBetweenNumbersStringsAndHalfTypes() {
        Tensor x = f32(new float[] {-2.7f, 0.5f, 3.9f}, 3);
        assertArrayEquals(new int[] {-2, 0, 3}, run1("Cast", 13, in(x), attr("to", 6)).ints());
        assertArrayEquals(new boolean[] {true, true, true}, run1("Cast", 13, in(x), attr("to", 9)).booleans());
        Tensor s = run1("Cast", 13, in(f32(new float[] {0.1f, 1f, 1e-5f, Float.NEGATIVE_INFINITY}, 4)),
                attr("to", 8));
        assertArrayEquals(new String[] {"0.1", "1.0", "1e-05", "-INF"}, s.strings());
        Tensor back = run1("Cast", 13, in(Tensor.ofStrings(new String[] {"1.5", "-inf", "NaN", "2e3"}, 4)),
                attr("to", 1));
        assertArrayEquals(new float[] {1.5f, Float.NEGATIVE_INFINITY, Float.NaN, 2000f}, back.floats());
        Tensor h = run1("Cast", 13, in(x), attr("to", 10));
        assertEquals(ElementType.FLOAT16, h.type());
        assertEquals(0.5f, HalfFloats.float16ToFloat(h.shorts()[1]));
        Tensor like = run1("CastLike", 15, in(Tensor.ofInts(new int[] {7}, 1), Tensor.ofDoubles(new double[0], 0)));
        assertArrayEquals(new double[] {7}, like.doubles());
        Tensor u64 = run1("Cast", 13, in(Tensor.ofDoubles(new double[] {1.8446744073709550E19}, 1)),
                attr("to", 13));
        assertEquals("18446744073709549568", Long.toUnsignedString(u64.longs()[0]));
    }

    @Test
    void castToUnsupportedTypesFailsClearly() {
        OrtexException e = assertThrows(OrtexException.class,
                () -> run1("Cast", 19, in(f32(new float[] {1}, 1)), attr("to", 14)));
        assertTrue(e.getMessage().contains("complex64"), e.getMessage());
        assertThrows(OrtexException.class, () -> run1("Cast", 21, in(f32(new float[] {1}, 1)), attr("to", 15)));
        assertThrows(OrtexException.class, () -> run1("Cast", 13, in(Tensor.ofStrings(new String[] {"x"}, 1)),
                attr("to", 1)));
    }

    @Test
    void constantFromEachAttributeKind() {
        Tensor ints = run1("Constant", 13, in(), ints("value_ints", 1, 2, 3));
        assertArrayEquals(new long[] {1, 2, 3}, ints.longs());
        assertArrayEquals(new long[] {3}, ints.shape());
        Tensor f = run1("Constant", 13, in(), attr("value_float", 2.5f));
        assertEquals(0, f.rank());
        assertEquals(2.5f, f.floats()[0]);
        Onnx.AttributeProto value = Onnx.AttributeProto.newBuilder().setName("value")
                .setType(Onnx.AttributeProto.AttributeType.TENSOR)
                .setT(TensorCodec.toProto(Tensor.ofInts(new int[] {4, 5}, 2), "v")).build();
        assertArrayEquals(new int[] {4, 5}, run1("Constant", 13, in(), value).ints());
        Onnx.AttributeProto sparse = Onnx.AttributeProto.newBuilder().setName("sparse_value")
                .setType(Onnx.AttributeProto.AttributeType.SPARSE_TENSOR)
                .setSparseTensor(Onnx.SparseTensorProto.newBuilder()).build();
        OrtexException e = assertThrows(OrtexException.class, () -> run1("Constant", 13, in(), sparse));
        assertTrue(e.getMessage().contains("sparse_value"), e.getMessage());
    }

    @Test
    void identityPassesTheInputThrough() {
        Tensor x = f32(new float[] {1, 2}, 2);
        assertSame(x, run1("Identity", 16, in(x)));
    }
}
