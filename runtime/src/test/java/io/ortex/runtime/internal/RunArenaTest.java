package io.ortex.runtime.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ortex.api.ElementType;
import io.ortex.api.Tensor;
import org.junit.jupiter.api.Test;

class RunArenaTest {
    private static final long[] SHAPE = {16, 16};

    @Test
    void aValueFreedByItsLastSlotIsRecycledForTheNextAllocationOfItsSize() {
        RunArena arena = new RunArena();
        arena.beginStep();
        Tensor a = arena.allocate(ElementType.FLOAT, SHAPE, true);
        arena.hold(a);
        arena.endStep();
        arena.beginStep();
        Tensor b = arena.allocate(ElementType.FLOAT, SHAPE, true);
        assertNotSame(a.data(), b.data(), "a is still held");
        arena.hold(b);
        arena.drop(a);
        arena.endStep();
        arena.beginStep();
        Tensor c = arena.allocate(ElementType.FLOAT, SHAPE, true);
        assertSame(a.data(), c.data(), "a's array was free");
        arena.endStep();
        assertEquals(16 * 16 * 4, arena.recycledBytes());
    }

    @Test
    void aRecycledArrayIsClearedUnlessTheKernelAskedForUninitializedMemory() {
        RunArena arena = new RunArena();
        arena.beginStep();
        Tensor a = arena.allocate(ElementType.FLOAT, SHAPE, true);
        a.floats()[3] = 7;
        arena.endStep();
        arena.beginStep();
        Tensor zeroed = arena.allocate(ElementType.FLOAT, SHAPE, true);
        assertSame(a.data(), zeroed.data());
        assertEquals(0f, zeroed.floats()[3]);
        zeroed.floats()[3] = 9;
        arena.endStep();
        arena.beginStep();
        Tensor raw = arena.allocate(ElementType.FLOAT, SHAPE, false);
        assertSame(a.data(), raw.data());
        assertEquals(9f, raw.floats()[3], "not cleared");
        arena.endStep();
    }

    @Test
    void scratchThatNoSlotHoldsIsRecycledWhenItsStepEnds() {
        RunArena arena = new RunArena();
        arena.beginStep();
        Tensor scratch = arena.allocate(ElementType.FLOAT, SHAPE, true);
        Tensor out = arena.allocate(ElementType.FLOAT, SHAPE, true);
        arena.hold(out);
        arena.endStep();
        arena.beginStep();
        assertSame(scratch.data(), arena.allocate(ElementType.FLOAT, SHAPE, true).data());
        assertNotSame(out.data(), arena.allocate(ElementType.FLOAT, SHAPE, true).data());
        arena.endStep();
    }

    @Test
    void aSharedArrayIsRecycledOnlyWhenEverySlotHoldingItIsFreed() {
        RunArena arena = new RunArena();
        arena.beginStep();
        Tensor x = arena.allocate(ElementType.FLOAT, SHAPE, true);
        arena.hold(x);
        arena.endStep();
        Tensor reshaped = x.reshape(new long[] {256});
        arena.beginStep();
        arena.hold(reshaped);
        arena.drop(x);
        arena.endStep();
        arena.beginStep();
        Tensor probe = arena.allocate(ElementType.FLOAT, SHAPE, true);
        assertNotSame(x.data(), probe.data(), "the reshape holds it");
        arena.hold(probe);
        arena.drop(reshaped);
        arena.endStep();
        arena.beginStep();
        assertSame(x.data(), arena.allocate(ElementType.FLOAT, SHAPE, true).data());
        arena.endStep();
    }

    @Test
    void aReleasedOutputIsNeverRecycled() {
        RunArena arena = new RunArena();
        arena.beginStep();
        Tensor out = arena.allocate(ElementType.FLOAT, SHAPE, true);
        arena.hold(out);
        arena.endStep();
        arena.release(out);
        arena.drop(out);
        arena.endRun();
        arena.beginStep();
        assertNotSame(out.data(), arena.allocate(ElementType.FLOAT, SHAPE, true).data());
        arena.endStep();
    }

    @Test
    void aBufferOfAnOpenStepPassedIntoASubgraphOutlivesTheSubgraphsUseOfIt() {
        RunArena arena = new RunArena();
        arena.beginStep();
        Tensor loopBuffer = arena.allocate(ElementType.FLOAT, SHAPE, true);
        // the subgraph holds the buffer as one of its inputs, then frees it after its last reader
        arena.hold(loopBuffer);
        arena.beginStep();
        arena.drop(loopBuffer);
        arena.endStep();
        arena.beginStep();
        assertNotSame(loopBuffer.data(), arena.allocate(ElementType.FLOAT, SHAPE, true).data(),
                "the control-flow step that took it is still running");
        arena.endStep();
        arena.hold(loopBuffer);
        arena.endStep();
    }

    @Test
    void smallArraysAndStringsAreNotTracked() {
        RunArena arena = new RunArena();
        arena.beginStep();
        Tensor small = arena.allocate(ElementType.FLOAT, new long[] {4}, true);
        Tensor strings = arena.allocate(ElementType.STRING, SHAPE, true);
        assertEquals("", strings.strings()[0]);
        arena.endStep();
        arena.beginStep();
        assertNotSame(small.data(), arena.allocate(ElementType.FLOAT, new long[] {4}, true).data());
        arena.endStep();
    }

    @Test
    void sizesARunDidNotUseAreDroppedAtItsEnd() {
        RunArena arena = new RunArena();
        arena.beginStep();
        Tensor big = arena.allocate(ElementType.FLOAT, new long[] {1000}, true);
        arena.endStep();
        arena.endRun();
        arena.beginStep();
        arena.allocate(ElementType.FLOAT, SHAPE, true);
        arena.endStep();
        arena.endRun();
        arena.beginStep();
        assertNotSame(big.data(), arena.allocate(ElementType.FLOAT, new long[] {1000}, true).data(),
                "the second run used no array of 1000 floats, so the free one was dropped");
        arena.endStep();
    }

    @Test
    void aPinnedArrayGoesToTheFirstAllocationOfItsShapeInTheStepItIsOfferedTo() {
        RunArena arena = new RunArena();
        Tensor target = Tensor.zeros(ElementType.FLOAT, SHAPE);
        target.floats()[5] = 3;
        arena.pin(target);
        arena.beginStep();
        assertNotSame(target.data(), arena.allocate(ElementType.FLOAT, SHAPE, true).data(), "not offered yet");
        arena.endStep();
        arena.beginStep();
        arena.offer(target);
        assertTrue(arena.offers(ElementType.FLOAT, SHAPE));
        assertFalse(arena.offers(ElementType.FLOAT, new long[] {256}), "another shape of the same size");
        assertNotSame(target.data(), arena.allocate(ElementType.FLOAT, new long[] {256}, true).data());
        Tensor out = arena.allocate(ElementType.FLOAT, SHAPE, true);
        assertSame(target.data(), out.data());
        assertEquals(0f, out.floats()[5], "cleared, as asked");
        assertNotSame(target.data(), arena.allocate(ElementType.FLOAT, SHAPE, true).data(), "handed out once");
        arena.withdrawOffers();
        assertFalse(arena.offers(ElementType.FLOAT, SHAPE));
        arena.endStep();
    }

    @Test
    void aPinnedArrayIsNeverRecycledEvenWhenAStepUsedItAsScratch() {
        RunArena arena = new RunArena();
        Tensor target = Tensor.zeros(ElementType.FLOAT, SHAPE);
        arena.pin(target);
        arena.beginStep();
        arena.offer(target);
        Tensor scratch = arena.allocate(ElementType.FLOAT, SHAPE, false);
        assertSame(target.data(), scratch.data());
        arena.withdrawOffers();
        arena.endStep();
        arena.beginStep();
        assertNotSame(target.data(), arena.allocate(ElementType.FLOAT, SHAPE, true).data(),
                "the caller's array is not the run's to reuse");
        arena.endStep();
        arena.endRun();
        arena.beginStep();
        assertNotSame(target.data(), arena.allocate(ElementType.FLOAT, SHAPE, true).data(), "nor a later run's");
        arena.endStep();
    }

    @Test
    void aPinnedArrayHeldByAValueIsNotRecycledWhenTheValueIsFreed() {
        RunArena arena = new RunArena();
        Tensor target = Tensor.zeros(ElementType.FLOAT, SHAPE);
        arena.pin(target);
        arena.beginStep();
        arena.offer(target);
        Tensor value = arena.allocate(ElementType.FLOAT, SHAPE, false);
        arena.hold(value);
        arena.withdrawOffers();
        arena.endStep();
        arena.drop(value);
        arena.beginStep();
        assertNotSame(target.data(), arena.allocate(ElementType.FLOAT, SHAPE, true).data());
        arena.endStep();
    }

    @Test
    void aSmallPinnedArrayIsHandedOutTooThoughSmallArraysAreNotTracked() {
        RunArena arena = new RunArena();
        long[] small = {2, 3};
        Tensor target = Tensor.zeros(ElementType.FLOAT, small);
        arena.pin(target);
        arena.beginStep();
        assertFalse(arena.offers(ElementType.FLOAT, small));
        assertNotSame(target.data(), arena.allocate(ElementType.FLOAT, small, true).data(), "not offered yet");
        arena.offer(target);
        assertSame(target.data(), arena.allocate(ElementType.FLOAT, small, true).data());
        arena.withdrawOffers();
        assertNotSame(target.data(), arena.allocate(ElementType.FLOAT, small, true).data(), "withdrawn");
        arena.endStep();
    }
}
