package io.ortex.ep.cpu.ops.nn;

import static io.ortex.testing.Attributes.attr;
import static io.ortex.testing.OneNodeModel.run;
import static io.ortex.testing.OneNodeModel.run1;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ortex.api.OrtexException;
import io.ortex.api.Tensor;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Unit tests of Dropout at inference, across its opsets. */
class DropoutTest {

    private static Tensor[] in(Tensor... t) {
        return t;
    }

    private static Tensor f32(float[] v, long... shape) {
        return Tensor.ofFloats(v, shape);
    }

    @Test
    void dropoutPassesTheInputThrough() {
        Tensor x = f32(new float[] {1, 2}, 2);
        List<Tensor> d = run("Dropout", 13, in(x), 2);
        assertSame(x, d.get(0));
        assertArrayEquals(new boolean[] {true, true}, d.get(1).booleans());
        List<Tensor> old = run("Dropout", 7, in(x), 2, attr("ratio", 0.3f));
        assertArrayEquals(new float[] {1, 1}, old.get(1).floats());
        Tensor train = Tensor.ofBooleans(new boolean[] {true});
        assertSame(x, run1("Dropout", 13, in(x, f32(new float[] {0f}), train)));
        OrtexException e = assertThrows(OrtexException.class,
                () -> run1("Dropout", 13, in(x, f32(new float[] {0.5f}), train)));
        assertTrue(e.getMessage().contains("training_mode"), e.getMessage());
    }
}
