package io.ortex.ep.example;

import io.ortex.api.ElementType;
import io.ortex.api.HardwareDeviceType;
import io.ortex.api.Tensor;
import io.ortex.api.spi.DataTransfer;
import io.ortex.api.spi.MemoryDevice;
import io.ortex.api.spi.MemoryInfo;
import io.ortex.api.spi.SyncStream;
import io.ortex.api.spi.TensorAllocator;
import java.nio.ByteBuffer;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The emulated NPU's own memory: blocks outside the Java heap (direct buffers), which the host reaches only through
 * the EP's data transfer, as it would a real accelerator's. Declared by {@link ExampleEpFactory} as device memory
 * ({@link #DEVICE}) and read-only memory for initializers ({@link #WEIGHTS}); each {@link Allocator} counts what it
 * holds, so tests and {@code ortex run} can see every block given back.
 */
final class DeviceMemory {
    /** The emulated NPU's memory device. */
    static final MemoryDevice NPU_MEMORY = new MemoryDevice(HardwareDeviceType.NPU, MemoryDevice.MemoryType.DEFAULT,
            ExampleEpFactory.VENDOR_ID, 0);
    /** Its memory for the values of runs. */
    static final MemoryInfo DEVICE = new MemoryInfo("ExampleNpu", NPU_MEMORY, MemoryInfo.Kind.DEVICE);
    /** Its read-only memory for initializers. */
    static final MemoryInfo WEIGHTS = new MemoryInfo("ExampleNpuWeights", NPU_MEMORY, MemoryInfo.Kind.READ_ONLY);

    private DeviceMemory() {
    }

    /** Hands out direct-buffer tensors of one memory and counts the live ones. Thread safe. */
    static final class Allocator implements TensorAllocator {
        private final MemoryInfo info;
        private final AtomicLong liveBlocks = new AtomicLong();
        private final AtomicLong liveBytes = new AtomicLong();

        Allocator(MemoryInfo info) {
            this.info = info;
        }

        @Override
        public MemoryInfo memoryInfo() {
            return info;
        }

        @Override
        public Tensor allocate(ElementType type, long... shape) {
            int bytes = Tensor.checkedElementCount(shape) * Tensor.storageBytes(type);
            ByteBuffer block = ByteBuffer.allocateDirect(Math.max(bytes, 1));
            liveBlocks.incrementAndGet();
            liveBytes.addAndGet(bytes);
            return Tensor.ofBuffer(type, shape, block, () -> {
                liveBlocks.decrementAndGet();
                liveBytes.addAndGet(-bytes);
            });
        }

        /**
         * Gets how many blocks are handed out and not yet given back.
         *
         * @return the count
         */
        long liveBlocks() {
            return liveBlocks.get();
        }

        /**
         * Gets how many bytes the live blocks hold.
         *
         * @return the byte count
         */
        long liveBytes() {
            return liveBytes.get();
        }
    }

    /**
     * Copies between host memory and the emulated NPU's memory: into a block of the target memory's allocator, or
     * back into a heap tensor. Refuses anything else, and a tensor that is not in the memory it is said to be in.
     */
    static final class Transfer implements DataTransfer {
        @Override
        public boolean canCopy(MemoryDevice source, MemoryDevice target) {
            return source.equals(MemoryDevice.CPU) && target.equals(NPU_MEMORY)
                    || source.equals(NPU_MEMORY) && target.equals(MemoryDevice.CPU);
        }

        /** Copies to host memory; a copy into the NPU's memory needs its allocator. */
        @Override
        public Tensor copy(Tensor tensor, MemoryDevice source, MemoryDevice target) {
            if (!target.equals(MemoryDevice.CPU)) {
                throw new IllegalArgumentException(ExampleEpFactory.NAME + " copies into " + target
                        + " only into a block of its allocator");
            }
            return copy(tensor, source, target, null);
        }

        @Override
        public Tensor copy(Tensor tensor, MemoryDevice source, MemoryDevice target, TensorAllocator allocator) {
            if (!canCopy(source, target)) {
                throw new IllegalArgumentException(ExampleEpFactory.NAME + " cannot copy from " + source + " to "
                        + target);
            }
            if (target.equals(MemoryDevice.CPU)) {
                if (!tensor.isOffHeap()) {
                    throw new IllegalArgumentException("a tensor said to be in " + source + " is on the Java heap");
                }
                return tensor.toHeap();
            }
            Tensor copy = allocator.allocate(tensor.type(), tensor.shape());
            tensor.copyTo(copy.buffer());
            return copy;
        }

        /**
         * Copies as part of a stream's work: a copy back to host memory is queued on the emulated NPU's stream (its
         * elements are there only once the stream has run it, which the runtime waits for before the host reads
         * them); a copy into the NPU's memory reads its host source at once, as the runtime requires, and so needs no
         * stream.
         */
        @Override
        public Tensor copy(Tensor tensor, MemoryDevice source, MemoryDevice target, TensorAllocator allocator,
                           SyncStream stream) {
            if (!(stream instanceof NpuStream npu) || !target.equals(MemoryDevice.CPU)) {
                return allocator == null ? copy(tensor, source, target) : copy(tensor, source, target, allocator);
            }
            if (!canCopy(source, target)) {
                throw new IllegalArgumentException(ExampleEpFactory.NAME + " cannot copy from " + source + " to "
                        + target);
            }
            if (!tensor.isOffHeap()) {
                throw new IllegalArgumentException("a tensor said to be in " + source + " is on the Java heap");
            }
            Tensor host = Tensor.zeros(tensor.type(), tensor.shape());
            ((Executor) npu.handle()).execute(() -> {
                Tensor read = tensor.toHeap();
                System.arraycopy(read.data(), 0, host.data(), 0, read.size());
            });
            return host;
        }
    }
}
