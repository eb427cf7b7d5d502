package io.ortex.shell.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** The compile verb's progress bar rendering. */
class CompileCommandTest {
    @Test
    void theBarFillsInProportionToThePartitionsDone() {
        assertEquals("[..........] 0/4 partitions", CompileCommand.progressBar(0, 4, 10));
        assertEquals("[#####.....] 2/4 partitions", CompileCommand.progressBar(2, 4, 10));
        assertEquals("[###.......] 1/3 partitions", CompileCommand.progressBar(1, 3, 10));
        assertEquals("[##########] 4/4 partitions", CompileCommand.progressBar(4, 4, 10));
        assertEquals("[##########] 0/0 partitions", CompileCommand.progressBar(0, 0, 10), "nothing to do is done");
    }
}
