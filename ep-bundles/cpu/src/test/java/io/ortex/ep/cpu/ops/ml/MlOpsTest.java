package io.ortex.ep.cpu.ops.ml;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.ortex.api.InvalidModelException;
import io.ortex.api.Tensor;
import io.ortex.ep.cpu.OneNodeModel;
import org.junit.jupiter.api.Test;

/** Focused cases of the ai.onnx.ml ops, worked out by hand. */
class MlOpsTest {
    private static final String ML = "ai.onnx.ml";

    @Test
    void arrayFeatureExtractorSelectsAlongTheLastAxis() {
        Tensor x = Tensor.ofInts(new int[] {1, 2, 3, 4, 5, 6}, 2, 3);
        Tensor y = new OneNodeModel(ML, "ArrayFeatureExtractor", 1).in(x).in(Tensor.ofLongs(new long[] {2, 0}, 2))
                .run1();
        assertArrayEquals(new long[] {2, 2}, y.shape());
        assertArrayEquals(new int[] {3, 1, 6, 4}, y.ints());
    }

    @Test
    void binarizerComparesWithTheThreshold() {
        Tensor x = Tensor.ofFloats(new float[] {-1, 0.5f, 2}, 3);
        assertArrayEquals(new float[] {0, 0, 1}, new OneNodeModel(ML, "Binarizer", 1).in(x)
                .attr("threshold", 0.5f).run1().floats());
    }

    @Test
    void labelEncoderListsAndDefaults() {
        Tensor x = Tensor.ofStrings(new String[] {"b", "z", "a"}, 3);
        Tensor y = new OneNodeModel(ML, "LabelEncoder", 2).in(x).strings("keys_strings", "a", "b")
                .ints("values_int64s", 7, 8).run1();
        assertArrayEquals(new long[] {8, -1, 7}, y.longs());
        Tensor keys = Tensor.ofLongs(new long[] {1, 2}, 2);
        Tensor z = new OneNodeModel(ML, "LabelEncoder", 4).in(Tensor.ofLongs(new long[] {2, 3}, 2))
                .tensor("keys_tensor", keys).tensor("values_tensor", Tensor.ofStrings(new String[] {"one", "two"}, 2))
                .attr("default_string", "none").run1();
        assertArrayEquals(new String[] {"two", "none"}, z.strings());
        assertThrows(InvalidModelException.class, () -> new OneNodeModel(ML, "LabelEncoder", 2).in(x)
                .strings("keys_strings", "a").ints("values_int64s", 1, 2).run1());
    }

    @Test
    void treeEnsembleSumsTheLeavesOfEachTree() {
        // one tree: x <= 5 -> leaf 0 (target 0, weight 10), else leaf 1 (target 1, weight 20);
        // a second tree that is a member test: x in {1, 7} -> leaf 2 (target 0, weight 1), else leaf 3 (target 1, 2)
        Tensor x = Tensor.ofFloats(new float[] {1, 6, 7}, 3, 1);
        Tensor y = new OneNodeModel(ML, "TreeEnsemble", 5).in(x).ints("tree_roots", 0, 1)
                .ints("nodes_featureids", 0, 0).tensor("nodes_modes", Tensor.of(io.ortex.api.ElementType.UINT8,
                        new long[] {2}, new byte[] {0, 6}))
                .tensor("nodes_splits", Tensor.ofFloats(new float[] {5, Float.NaN}, 2))
                .tensor("membership_values", Tensor.ofFloats(new float[] {1, 7, Float.NaN}, 3))
                .ints("nodes_truenodeids", 0, 2).ints("nodes_trueleafs", 1, 1)
                .ints("nodes_falsenodeids", 1, 3).ints("nodes_falseleafs", 1, 1)
                .ints("leaf_targetids", 0, 1, 0, 1)
                .tensor("leaf_weights", Tensor.ofFloats(new float[] {10, 20, 1, 2}, 4))
                .attr("n_targets", 2L).run1();
        assertArrayEquals(new long[] {3, 2}, y.shape());
        assertArrayEquals(new float[] {11, 0, 0, 22, 1, 20}, y.floats(), 1e-6f);
    }
}
