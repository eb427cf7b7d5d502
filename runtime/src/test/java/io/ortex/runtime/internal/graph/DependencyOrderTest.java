package io.ortex.runtime.internal.graph;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Comparator;
import java.util.List;
import org.junit.jupiter.api.Test;

class DependencyOrderTest {
    @Test
    void eachItemComesAfterTheWritersOfWhatItReadsAndOtherwiseByPriority() {
        // 0 reads b (written by 2), 1 reads nothing, 2 reads a (a graph input nobody writes)
        List<Integer> order = DependencyOrder.of(List.of(List.of("c"), List.of("d"), List.of("b")),
                List.of(List.of("b"), List.of(), List.of("a")), Comparator.naturalOrder());
        assertEquals(List.of(1, 2, 0), order);
        List<Integer> reversed = DependencyOrder.of(List.of(List.of("c"), List.of("d"), List.of("b")),
                List.of(List.of("b"), List.of(), List.of("a")), Comparator.reverseOrder());
        assertEquals(List.of(2, 1, 0), reversed);
    }

    @Test
    void theEmptyNameMakesNoDependency() {
        // an omitted output and an omitted input are no value passed between the two
        List<Integer> order = DependencyOrder.of(List.of(List.of(""), List.of("x", "")),
                List.of(List.of("", "x"), List.of("")), Comparator.naturalOrder());
        assertEquals(List.of(1, 0), order);
    }

    @Test
    void itemsInACycleAndAfterItAreLeftOut() {
        List<Integer> order = DependencyOrder.of(List.of(List.of("a"), List.of("b"), List.of("c"), List.of("d")),
                List.of(List.of("b"), List.of("a"), List.of("a"), List.of()), Comparator.naturalOrder());
        assertEquals(List.of(3), order);
    }
}
