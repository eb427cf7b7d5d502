package io.ortex.ep.cpu;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Set;
import org.junit.jupiter.api.Test;

/** Unit tests of the operator table's opset ranges. */
class OpRegistryTest {
    private static final KernelFactory OLD = node -> null;
    private static final KernelFactory NEW = node -> null;

    @Test
    void lookupPicksTheRangeHoldingTheOpsetAtEitherBound() {
        OpRegistry r = new OpRegistry();
        r.register("", "Clip", 6, 10, OLD);
        r.register("", "Clip", 11, NEW);
        assertSame(OLD, r.lookup("", "Clip", 6));
        assertSame(OLD, r.lookup("", "Clip", 10));
        assertSame(NEW, r.lookup("", "Clip", 11));
        assertSame(NEW, r.lookup("", "Clip", OpRegistry.LATEST));
        assertSame(NEW, r.lookup("ai.onnx", "Clip", 13), "ai.onnx is the default domain");
    }

    @Test
    void anOpsetOutsideEveryRangeIsNotFound() {
        OpRegistry r = new OpRegistry();
        r.register("", "Resize", 10, 10, OLD);
        r.register("", "Resize", 13, 18, NEW);
        assertNull(r.lookup("", "Resize", 9), "below every range");
        assertNull(r.lookup("", "Resize", 11), "in the gap between ranges");
        assertNull(r.lookup("", "Resize", 19), "above every range");
        assertNull(r.lookup("", "Upsample", 10), "an op never registered");
        assertNull(r.lookup("com.example", "Resize", 10), "the same op type in another domain");
    }

    @Test
    void overlappingRangesAreRefusedNamingTheOpAndBothRanges() {
        OpRegistry r = new OpRegistry();
        r.register("", "Pad", 2, 10, OLD);
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> r.register("", "Pad", 10, NEW));
        assertTrue(e.getMessage().contains("Pad") && e.getMessage().contains("[10, latest]")
                && e.getMessage().contains("[2, 10]"), e.getMessage());
        assertThrows(IllegalStateException.class, () -> r.register("", "Pad", 1, 2, NEW));
        assertThrows(IllegalStateException.class, () -> r.register("ai.onnx", "Pad", 5, 6, NEW));
        assertThrows(IllegalStateException.class, () -> r.register("Pad", NEW), "all opsets overlap");
        assertSame(OLD, r.lookup("", "Pad", 10), "a refused registration changes nothing");
        r.register("", "Pad", 1, 1, NEW);
        assertSame(NEW, r.lookup("", "Pad", 1));
    }

    @Test
    void emptyRangesAndOpsetsBelowOneAreRefused() {
        OpRegistry r = new OpRegistry();
        assertThrows(IllegalArgumentException.class, () -> r.register("", "Slice", 10, 9, OLD));
        assertThrows(IllegalArgumentException.class, () -> r.register("", "Slice", 0, 9, OLD));
        assertEquals(Set.of(), r.ops());
    }

    @Test
    void opsListsEachOpOnceWhateverItsRanges() {
        OpRegistry r = new OpRegistry();
        r.register("", "Softmax", 1, 12, OLD);
        r.register("", "Softmax", 13, NEW);
        r.register("ai.onnx.ml", "Binarizer", 1, OLD);
        assertEquals(Set.of("Softmax", "ai.onnx.ml::Binarizer"), r.ops());
    }

    @Test
    void theCpuTableSplitsOpsWhoseBehaviourChangedWithTheOpset() {
        OpRegistry r = new CpuEpFactory().registry();
        assertNotSame(r.lookup("", "Clip", 10), r.lookup("", "Clip", 11));
        assertNotSame(r.lookup("", "Softmax", 12), r.lookup("", "Softmax", 13));
        assertNotSame(r.lookup("", "Slice", 9), r.lookup("", "Slice", 10));
        assertNotSame(r.lookup("", "Reshape", 4), r.lookup("", "Reshape", 5));
        assertNotSame(r.lookup("", "Pad", 10), r.lookup("", "Pad", 11));
        assertNotSame(r.lookup("", "Scan", 8), r.lookup("", "Scan", 9));
        assertNotNull(r.lookup("", "Reshape", 1));
        assertNull(r.lookup("", "Resize", 9), "Resize starts at opset 10");
        assertNotNull(r.lookup("", "Resize", 10));
        assertNotNull(r.lookup("", "Resize", 11));
    }
}
