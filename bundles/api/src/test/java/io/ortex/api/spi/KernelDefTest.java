package io.ortex.api.spi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ortex.api.ElementType;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** Kernel definitions as an EP builds them, the registry that holds them, and pre-packed weights. */
class KernelDefTest {
    @Test
    void aDefinitionKeepsWhatItWasBuiltWith() {
        KernelDef d = KernelDef.builder("Loop").domain("").versions(11, 18)
                .typeConstraint("V", Set.of(ElementType.FLOAT, ElementType.INT64), 2)
                .inputMemory(0, KernelMemoryType.CPU_INPUT).outputMemory(1, KernelMemoryType.CPU_OUTPUT)
                .alias(2, 0).mayInplace(2, 1).build();
        assertEquals("Loop", d.opType());
        assertEquals("", d.domain());
        assertEquals(11, d.sinceVersion());
        assertEquals(18, d.untilVersion());
        assertTrue(d.serves(11) && d.serves(18));
        assertFalse(d.serves(10) || d.serves(19));
        assertEquals(KernelMemoryType.CPU_INPUT, d.inputMemory(0));
        assertEquals(KernelMemoryType.DEFAULT, d.inputMemory(1));
        assertEquals(KernelMemoryType.CPU_OUTPUT, d.outputMemory(1));
        assertEquals(Map.of(0, 2), d.aliases());
        assertEquals(Map.of(1, 2), d.inplace());
        assertEquals(List.of(2), d.typeConstraints().get(0).inputs());
        assertEquals("Loop(11-18) [V=[float32, int64] on inputs [2]]", d.toString());
        assertEquals("com.x::Op(3+)", KernelDef.builder("Op").domain("com.x").since(3).build().toString());
        assertThrows(UnsupportedOperationException.class, () -> d.inplace().put(0, 0));
    }

    @Test
    void badDefinitionsAreRefusedNamingTheOp() {
        IllegalArgumentException range = assertThrows(IllegalArgumentException.class,
                () -> KernelDef.builder("Add").versions(13, 7));
        assertTrue(range.getMessage().contains("Add") && range.getMessage().contains("13..7"), range.getMessage());
        assertThrows(IllegalArgumentException.class, () -> KernelDef.builder("Add").since(0));
        assertThrows(IllegalArgumentException.class, () -> KernelDef.builder(" "));
        assertThrows(IllegalArgumentException.class, () -> KernelDef.builder("Add").mayInplace(-1, 0));
        assertThrows(IllegalArgumentException.class, () -> KernelDef.builder("Add").typeConstraint("T", Set.of()));
        assertThrows(IllegalArgumentException.class,
                () -> KernelDef.builder("Add").typeConstraint("T", Set.of(ElementType.FLOAT)));
    }

    @Test
    void theRegistryListsItsKernelsInOrder() {
        KernelCreateFunction create = info -> (context, inputs) -> inputs;
        KernelRegistry r = new KernelRegistry().add(KernelDef.builder("Add").versions(7, 12).build(), create)
                .add(KernelDef.builder("Add").since(13).build(), create);
        assertEquals(List.of(7, 13), r.entries().stream().map(e -> e.definition().sinceVersion()).toList());
        assertThrows(NullPointerException.class, () -> r.add(null, create));
        assertThrows(UnsupportedOperationException.class, () -> r.entries().clear());
    }

    @Test
    void aPrePackedWeightRunsItsReleaseAction() {
        AtomicInteger released = new AtomicInteger();
        PrePackedWeight w = PrePackedWeight.of(new float[4], 16, released::incrementAndGet);
        assertEquals(16, w.bytes());
        w.release();
        assertEquals(1, released.get());
        PrePackedWeight.of(new float[1], 4).release();
        assertThrows(IllegalArgumentException.class, () -> PrePackedWeight.of(new float[1], -1));
        assertEquals("PrePackedWeight[float[], 16 bytes]", w.toString());
    }
}
