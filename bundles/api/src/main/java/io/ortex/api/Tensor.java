package io.ortex.api;

import java.lang.reflect.Array;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A dense tensor: an element type, a shape and the elements in row-major order, held in one primitive Java array
 * (see {@link ElementType#storage()}).
 *
 * <p>Tensors are treated as immutable values and are safe to share between threads once created. Who owns the
 * arrays:
 * <ul>
 *   <li>{@link #of(ElementType, long[], Object)}, {@link #ofFloats}, {@link #ofLongs} and the other flat factories
 *       take the array they are given as it is, without copying it: the caller must not modify it afterwards.</li>
 *   <li>{@link #of(float[][])} and {@link #of(long[][])} copy the rows into a new array; the caller keeps its
 *       matrix.</li>
 *   <li>The typed accessors ({@link #floats()}, {@link #longs()}, ..., {@link #data()}) return the tensor's own
 *       array, so that kernels read it at full speed: it must not be modified.</li>
 *   <li>{@link #toFloatArray()} returns a new array that belongs to the caller.</li>
 * </ul>
 * The tensors {@link Session#run(java.util.Map)} returns are new and belong to the caller; no later run touches
 * their arrays. The one exception to immutability is a tensor the caller pins as an output of a run
 * ({@link Session#run(java.util.Map, java.util.Map, RunOptions)}): that run writes its elements.
 *
 * <p>A shape may contain zero-sized dimensions; a tensor of rank 0 is a scalar with one element. The element count
 * must fit in a Java array.
 *
 * <p><b>Tensors outside the Java heap.</b> An EP that keeps data in memory of its own (ONNX Runtime's device
 * memory) hands out tensors made by {@link #ofBuffer}: the elements sit in a direct {@link ByteBuffer}, little-endian,
 * each element as wide as one element of its {@link ElementType#storage()} array (bool one byte). Such a tensor has
 * the same type and shape accessors; its array accessors ({@link #data()}, {@link #floats()}, ...) refuse it, since
 * the host may not be able to read that memory: {@link #buffer()} gives the elements to whoever owns the memory, and
 * {@link #toHeap()} copies them into an ordinary tensor. Off-heap tensors are owned explicitly: {@link #close()}
 * gives the memory back to the allocator that made it (once; later calls do nothing), after which the tensor must
 * not be used; a {@link #reshape} view shares its memory and its ownership. Heap tensors need no closing
 * ({@link #close()} does nothing on them).
 */
public final class Tensor implements AutoCloseable {
    /** The largest element count a tensor may hold (the practical limit of a Java array). */
    public static final long MAX_ELEMENTS = Integer.MAX_VALUE - 8;

    private static final long[] SCALAR = new long[0];

    private final ElementType type;
    private final long[] shape;
    private final Object data;
    private final int size;
    private final ByteBuffer buffer;
    private final Release release;

    private Tensor(ElementType type, long[] shape, Object data, int size) {
        this.type = type;
        this.shape = shape;
        this.data = data;
        this.size = size;
        this.buffer = null;
        this.release = null;
    }

    private Tensor(ElementType type, long[] shape, int size, ByteBuffer buffer, Release release) {
        this.type = type;
        this.shape = shape;
        this.data = null;
        this.size = size;
        this.buffer = buffer;
        this.release = release;
    }

    /** The one release of an off-heap tensor's memory, shared by its reshaped views. */
    private static final class Release {
        private final AtomicBoolean done = new AtomicBoolean();
        private final Runnable action;

        Release(Runnable action) {
            this.action = action;
        }

        void run() {
            if (done.compareAndSet(false, true)) {
                action.run();
            }
        }
    }

    /**
     * Creates a tensor whose elements live outside the Java heap, in a direct buffer, as an EP's allocator does for
     * memory of its own. The tensor owns the buffer from now on; {@link #close()} runs {@code release} once.
     *
     * @param type the element type, any supported type but string
     * @param shape the dimensions, each at least 0
     * @param buffer a direct buffer with at least {@code elements * storageBytes(type)} bytes from its position on
     * @param release gives the memory back to its allocator; run at most once
     * @return the tensor
     * @throws InvalidArgumentException when the buffer is not direct or too small, or the type is string
     */
    public static Tensor ofBuffer(ElementType type, long[] shape, ByteBuffer buffer, Runnable release) {
        Objects.requireNonNull(type, "type");
        Objects.requireNonNull(buffer, "buffer");
        Objects.requireNonNull(release, "release");
        requireSupported(type);
        if (type == ElementType.STRING) {
            throw new InvalidArgumentException("a string tensor cannot live outside the Java heap");
        }
        if (!buffer.isDirect()) {
            throw new InvalidArgumentException("an off-heap tensor needs a direct buffer, not a heap buffer");
        }
        long[] dims = shape.length == 0 ? SCALAR : shape.clone();
        int count = checkedElementCount(dims);
        long needed = (long) count * storageBytes(type);
        if (buffer.remaining() < needed) {
            throw new InvalidArgumentException("a " + type + " tensor of shape " + shapeString(dims) + " needs "
                    + needed + " bytes, the buffer has " + buffer.remaining());
        }
        ByteBuffer own = buffer.slice().limit((int) needed).order(ByteOrder.LITTLE_ENDIAN);
        return new Tensor(type, dims, count, own, new Release(release));
    }

    /**
     * Gets how many bytes one element takes in an off-heap tensor: the width of one element of the type's storage
     * array ({@code float[]}: 4, {@code long[]}: 8, {@code boolean[]}: 1, ...).
     *
     * @param type the element type, any supported type but string
     * @return the width in bytes
     * @throws InvalidArgumentException for string and unsupported types
     */
    public static int storageBytes(ElementType type) {
        Class<?> storage = type.storage();
        if (storage == null || storage == String[].class) {
            throw new InvalidArgumentException(type + " elements have no fixed width");
        }
        Class<?> c = storage.getComponentType();
        return c == double.class || c == long.class ? 8 : c == float.class || c == int.class ? 4
                : c == short.class ? 2 : 1;
    }

    /**
     * Tells whether the elements live outside the Java heap ({@link #ofBuffer}).
     *
     * @return true for an off-heap tensor
     */
    public boolean isOffHeap() {
        return buffer != null;
    }

    /**
     * Gets the elements of an off-heap tensor: a new little-endian view of its buffer, positioned at the first
     * element. Only the owner of the memory (the EP that made the tensor, or its data transfer) reads or writes it, and
     * only before the tensor is handed on or closed.
     *
     * @return the buffer view
     * @throws InvalidArgumentException when the tensor is a heap tensor
     */
    public ByteBuffer buffer() {
        if (buffer == null) {
            throw new InvalidArgumentException("this " + type + " tensor lives on the Java heap; read data()");
        }
        return buffer.duplicate().order(ByteOrder.LITTLE_ENDIAN);
    }

    /**
     * Gets the number of bytes the elements take: for an off-heap tensor its buffer's size, for a heap tensor the
     * same count for its storage (0 for strings).
     *
     * @return the byte count
     */
    public long byteSize() {
        return type == ElementType.STRING ? 0 : (long) size * storageBytes(type);
    }

    /**
     * Copies an off-heap tensor's elements into a new heap tensor; a heap tensor is returned as it is.
     *
     * @return a heap tensor with the same type, shape and elements
     */
    public Tensor toHeap() {
        if (buffer == null) {
            return this;
        }
        Object array = Array.newInstance(type.storage().getComponentType(), size);
        readBuffer(array);
        return new Tensor(type, shape, array, size);
    }

    /** Decodes an off-heap tensor's elements into an array of its storage class and size. */
    private void readBuffer(Object array) {
        ByteBuffer b = buffer();
        if (array instanceof float[] a) {
            b.asFloatBuffer().get(a);
        } else if (array instanceof double[] a) {
            b.asDoubleBuffer().get(a);
        } else if (array instanceof long[] a) {
            b.asLongBuffer().get(a);
        } else if (array instanceof int[] a) {
            b.asIntBuffer().get(a);
        } else if (array instanceof short[] a) {
            b.asShortBuffer().get(a);
        } else if (array instanceof byte[] a) {
            b.get(a);
        } else {
            boolean[] a = (boolean[]) array;
            for (int i = 0; i < a.length; i++) {
                a[i] = b.get(i) != 0;
            }
        }
    }

    /**
     * Copies a heap tensor's elements into a buffer, little-endian, as {@link #ofBuffer} lays them out; a data
     * transfer uses it to fill off-heap memory.
     *
     * @param target where the elements go, from its position on; its position is not moved
     * @throws InvalidArgumentException when this tensor is off-heap or of strings, or the buffer is too small
     */
    public void copyTo(ByteBuffer target) {
        if (buffer != null) {
            ByteBuffer b = target.duplicate().order(ByteOrder.LITTLE_ENDIAN);
            b.put(buffer());
            return;
        }
        if (type == ElementType.STRING) {
            throw new InvalidArgumentException("a string tensor cannot be copied into a buffer");
        }
        if (target.remaining() < byteSize()) {
            throw new InvalidArgumentException("a " + type + " tensor of shape " + shapeString(shape) + " needs "
                    + byteSize() + " bytes, the buffer has " + target.remaining());
        }
        ByteBuffer b = target.duplicate().order(ByteOrder.LITTLE_ENDIAN);
        if (data instanceof float[] a) {
            b.asFloatBuffer().put(a);
        } else if (data instanceof double[] a) {
            b.asDoubleBuffer().put(a);
        } else if (data instanceof long[] a) {
            b.asLongBuffer().put(a);
        } else if (data instanceof int[] a) {
            b.asIntBuffer().put(a);
        } else if (data instanceof short[] a) {
            b.asShortBuffer().put(a);
        } else if (data instanceof byte[] a) {
            b.put(a);
        } else {
            boolean[] a = (boolean[]) data;
            for (int i = 0; i < a.length; i++) {
                b.put(i, (byte) (a[i] ? 1 : 0));
            }
        }
    }

    /**
     * Copies this tensor's elements into a heap tensor of the same type and shape, overwriting what it held: how a
     * pinned output ({@link Session#run(java.util.Map, java.util.Map, RunOptions)}) is filled when the run computed
     * the value elsewhere.
     *
     * @param target the heap tensor to overwrite; copying a tensor into itself does nothing
     * @throws InvalidArgumentException when the target is off-heap, or of another type or shape
     */
    public void copyTo(Tensor target) {
        Objects.requireNonNull(target, "target");
        if (target.buffer != null) {
            throw new InvalidArgumentException("a tensor can be copied into a heap tensor only, not into an off-heap "
                    + target.type + " tensor");
        }
        if (target.type != type || !Arrays.equals(target.shape, shape)) {
            throw new InvalidArgumentException("a " + type + " " + shapeString(shape) + " tensor cannot be copied into "
                    + "a " + target.type + " " + shapeString(target.shape) + " tensor");
        }
        if (buffer != null) {
            readBuffer(target.data);
        } else if (data != target.data) {
            System.arraycopy(data, 0, target.data, 0, size);
        }
    }

    /**
     * Gives an off-heap tensor's memory back to the allocator that made it; the first call does, later calls and
     * calls on heap tensors do nothing. The tensor must not be used afterwards.
     */
    @Override
    public void close() {
        if (release != null) {
            release.run();
        }
    }

    /**
     * Tells whether this tensor and another are the same elements in the same memory: the same heap array, or the
     * same off-heap block (one made from the other by {@link #reshape}, which shares the block and its release). A
     * kernel whose output is declared an alias of an input returns such a view.
     *
     * @param other the other tensor
     * @return true when both share their storage
     */
    public boolean isViewOf(Tensor other) {
        if (other == this) {
            return true;
        }
        if (other == null) {
            return false;
        }
        if (buffer != null) {
            return release != null && release == other.release;
        }
        return other.buffer == null && data != null && data == other.data;
    }

    /**
     * Creates a tensor over an existing array, which the tensor then owns.
     *
     * @param type the element type
     * @param shape the dimensions, each at least 0
     * @param data an array of class {@code type.storage()} whose length is the product of the dimensions
     * @return the tensor
     * @throws NotImplementedException when the element type is not supported
     * @throws InvalidArgumentException when the array does not fit the type or the shape
     */
    public static Tensor of(ElementType type, long[] shape, Object data) {
        Objects.requireNonNull(type, "type");
        Objects.requireNonNull(data, "data");
        requireSupported(type);
        long[] dims = shape.length == 0 ? SCALAR : shape.clone();
        int count = checkedElementCount(dims);
        if (data.getClass() != type.storage()) {
            throw new InvalidArgumentException("a " + type + " tensor needs a " + type.storage().getSimpleName()
                    + ", not a " + data.getClass().getSimpleName());
        }
        int length = Array.getLength(data);
        if (length != count) {
            throw new InvalidArgumentException("a " + type + " tensor of shape " + shapeString(dims) + " needs "
                    + count + " elements, the array has " + length);
        }
        return new Tensor(type, dims, data, count);
    }

    /**
     * Creates a tensor filled with zeros (false, empty strings; for float8e8m0, which has no zero, pattern 0,
     * the value 2^-127).
     *
     * @param type the element type
     * @param shape the dimensions
     * @return the tensor
     */
    public static Tensor zeros(ElementType type, long... shape) {
        requireSupported(type);
        int count = checkedElementCount(shape);
        RunMemory.check(type, count);
        Object data = Array.newInstance(type.storage().getComponentType(), count);
        if (type == ElementType.STRING) {
            Arrays.fill((String[]) data, "");
        }
        return new Tensor(type, shape.length == 0 ? SCALAR : shape.clone(), data, count);
    }

    /**
     * Creates a float32 tensor.
     *
     * @param data the elements, owned by the tensor from now on
     * @param shape the dimensions
     * @return the tensor
     */
    public static Tensor ofFloats(float[] data, long... shape) {
        return of(ElementType.FLOAT, shape, data);
    }

    /**
     * Creates a float32 tensor of shape {@code [rows, columns]} from a matrix, such as a batch of feature vectors.
     * The elements are copied; the matrix stays the caller's.
     *
     * @param rows the rows, all of the same length
     * @return the tensor; of shape {@code [0, 0]} when there are no rows
     * @throws InvalidArgumentException when a row is null or its length differs from the first row's
     */
    public static Tensor of(float[][] rows) {
        int columns = columns(rows);
        float[] data = new float[rows.length * columns];
        for (int r = 0; r < rows.length; r++) {
            System.arraycopy(rows[r], 0, data, r * columns, columns);
        }
        return new Tensor(ElementType.FLOAT, new long[] {rows.length, columns}, data, data.length);
    }

    /**
     * Creates an int64 tensor of shape {@code [rows, columns]} from a matrix, such as a batch of token ids. The
     * elements are copied; the matrix stays the caller's.
     *
     * @param rows the rows, all of the same length
     * @return the tensor; of shape {@code [0, 0]} when there are no rows
     * @throws InvalidArgumentException when a row is null or its length differs from the first row's
     */
    public static Tensor of(long[][] rows) {
        int columns = columns(rows);
        long[] data = new long[rows.length * columns];
        for (int r = 0; r < rows.length; r++) {
            System.arraycopy(rows[r], 0, data, r * columns, columns);
        }
        return new Tensor(ElementType.INT64, new long[] {rows.length, columns}, data, data.length);
    }

    /** Checks that a matrix is rectangular and gives its column count. */
    private static int columns(Object[] rows) {
        Objects.requireNonNull(rows, "rows");
        int columns = rows.length == 0 ? 0 : rowLength(rows, 0);
        for (int r = 1; r < rows.length; r++) {
            if (rowLength(rows, r) != columns) {
                throw new InvalidArgumentException("row " + r + " has " + Array.getLength(rows[r])
                        + " elements, row 0 has " + columns + ": a tensor needs rows of one length");
            }
        }
        if ((long) rows.length * columns > MAX_ELEMENTS) {
            throw new InvalidArgumentException(rows.length + " rows of " + columns + " elements are more than "
                    + MAX_ELEMENTS + " elements");
        }
        return columns;
    }

    private static int rowLength(Object[] rows, int r) {
        if (rows[r] == null) {
            throw new InvalidArgumentException("row " + r + " is null");
        }
        return Array.getLength(rows[r]);
    }

    /**
     * Creates a float64 tensor.
     *
     * @param data the elements, owned by the tensor from now on
     * @param shape the dimensions
     * @return the tensor
     */
    public static Tensor ofDoubles(double[] data, long... shape) {
        return of(ElementType.DOUBLE, shape, data);
    }

    /**
     * Creates an int64 tensor.
     *
     * @param data the elements, owned by the tensor from now on
     * @param shape the dimensions
     * @return the tensor
     */
    public static Tensor ofLongs(long[] data, long... shape) {
        return of(ElementType.INT64, shape, data);
    }

    /**
     * Creates an int32 tensor.
     *
     * @param data the elements, owned by the tensor from now on
     * @param shape the dimensions
     * @return the tensor
     */
    public static Tensor ofInts(int[] data, long... shape) {
        return of(ElementType.INT32, shape, data);
    }

    /**
     * Creates a bool tensor.
     *
     * @param data the elements, owned by the tensor from now on
     * @param shape the dimensions
     * @return the tensor
     */
    public static Tensor ofBooleans(boolean[] data, long... shape) {
        return of(ElementType.BOOL, shape, data);
    }

    /**
     * Creates a string tensor.
     *
     * @param data the elements, owned by the tensor from now on
     * @param shape the dimensions
     * @return the tensor
     */
    public static Tensor ofStrings(String[] data, long... shape) {
        return of(ElementType.STRING, shape, data);
    }

    /**
     * Gets the element type.
     *
     * @return the element type
     */
    public ElementType type() {
        return type;
    }

    /**
     * Gets a copy of the shape.
     *
     * @return the dimensions; empty for a scalar
     */
    public long[] shape() {
        return shape.clone();
    }

    /**
     * Gets the number of dimensions.
     *
     * @return the rank; 0 for a scalar
     */
    public int rank() {
        return shape.length;
    }

    /**
     * Gets one dimension.
     *
     * @param axis the axis, 0 to rank-1
     * @return the size of that dimension
     */
    public long dim(int axis) {
        return shape[axis];
    }

    /**
     * Gets the number of elements, the product of the dimensions.
     *
     * @return the element count
     */
    public int size() {
        return size;
    }

    /**
     * Gets the backing array (of class {@code type().storage()}), which must not be modified.
     *
     * @return the array
     */
    public Object data() {
        requireHeap();
        return data;
    }

    private void requireHeap() {
        if (buffer != null) {
            throw new InvalidArgumentException("this " + type + " tensor of shape " + shapeString(shape)
                    + " lives outside the Java heap; copy it to host memory first (toHeap())");
        }
    }

    /**
     * Gets the elements of a float32 tensor.
     *
     * @return the backing array, which must not be modified
     * @throws InvalidArgumentException when the tensor is not float32
     */
    public float[] floats() {
        return (float[]) typed(float[].class);
    }

    /**
     * Gets the elements of a float64 tensor.
     *
     * @return the backing array, which must not be modified
     */
    public double[] doubles() {
        return (double[]) typed(double[].class);
    }

    /**
     * Gets the elements of an int64 or uint64 tensor.
     *
     * @return the backing array, which must not be modified
     */
    public long[] longs() {
        return (long[]) typed(long[].class);
    }

    /**
     * Gets the elements of an int32 or uint32 tensor.
     *
     * @return the backing array, which must not be modified
     */
    public int[] ints() {
        return (int[]) typed(int[].class);
    }

    /**
     * Gets the elements of a 16-bit tensor (int16, uint16, float16 or bfloat16 bits).
     *
     * @return the backing array, which must not be modified
     */
    public short[] shorts() {
        return (short[]) typed(short[].class);
    }

    /**
     * Gets the elements of an 8-bit integer tensor (int8 or uint8).
     *
     * @return the backing array, which must not be modified
     */
    public byte[] bytes() {
        return (byte[]) typed(byte[].class);
    }

    /**
     * Gets the elements of a bool tensor.
     *
     * @return the backing array, which must not be modified
     */
    public boolean[] booleans() {
        return (boolean[]) typed(boolean[].class);
    }

    /**
     * Gets the elements of a string tensor.
     *
     * @return the backing array, which must not be modified
     */
    public String[] strings() {
        return (String[]) typed(String[].class);
    }

    /**
     * Copies the elements into a new float array, whatever the numeric type, so that an output can be read without
     * knowing its storage class: float32 elements as they are, the other types converted as
     * {@link #getDouble(int)} reads them and then rounded to float (int64 values beyond 2^24 and float64 values lose
     * precision).
     *
     * @return a new array of {@link #size()} elements in row-major order, which belongs to the caller
     * @throws InvalidArgumentException for string tensors
     */
    public float[] toFloatArray() {
        if (buffer != null) {
            return toHeap().toFloatArray();
        }
        if (type == ElementType.FLOAT) {
            return ((float[]) data).clone();
        }
        if (type == ElementType.STRING) {
            throw new InvalidArgumentException("a string tensor has no numeric elements");
        }
        float[] copy = new float[size];
        for (int i = 0; i < size; i++) {
            copy[i] = (float) getDouble(i);
        }
        return copy;
    }

    /**
     * Reads one element as a double, whatever the numeric type (unsigned types read as unsigned, bool as 0 or 1,
     * the 8- and 4-bit float patterns decoded exactly).
     *
     * @param index the flat row-major index
     * @return the value
     * @throws InvalidArgumentException for string tensors
     */
    public double getDouble(int index) {
        requireHeap();
        switch (type) {
            case FLOAT: return ((float[]) data)[index];
            case DOUBLE: return ((double[]) data)[index];
            case FLOAT16: return HalfFloats.float16ToFloat(((short[]) data)[index]);
            case BFLOAT16: return HalfFloats.bfloat16ToFloat(((short[]) data)[index]);
            case UINT64: {
                long v = ((long[]) data)[index];
                // halve with the low bit kept as a sticky bit, so that the one rounding to double is correct
                return v >= 0 ? v : (double) ((v >>> 1) | (v & 1)) * 2.0;
            }
            case BOOL: return ((boolean[]) data)[index] ? 1 : 0;
            case STRING: throw new InvalidArgumentException("a string tensor has no numeric elements");
            case FLOAT8E4M3FN: case FLOAT8E4M3FNUZ: case FLOAT8E5M2: case FLOAT8E5M2FNUZ: case FLOAT8E8M0:
            case FLOAT4E2M1:
                return NarrowFloats.toFloat(type, ((byte[]) data)[index]);
            default: return getLong(index);
        }
    }

    /**
     * Reads one element as a long, whatever the numeric type (floats truncate towards zero, unsigned types read as
     * unsigned except uint64 above {@link Long#MAX_VALUE}, which wraps).
     *
     * @param index the flat row-major index
     * @return the value
     * @throws InvalidArgumentException for string tensors
     */
    public long getLong(int index) {
        requireHeap();
        switch (type) {
            case INT64: case UINT64: return ((long[]) data)[index];
            case INT32: return ((int[]) data)[index];
            case UINT32: return Integer.toUnsignedLong(((int[]) data)[index]);
            case INT16: return ((short[]) data)[index];
            case UINT16: return Short.toUnsignedInt(((short[]) data)[index]);
            case INT8: return ((byte[]) data)[index];
            case UINT8: return Byte.toUnsignedInt(((byte[]) data)[index]);
            case INT4: case UINT4: case INT2: case UINT2: return ((byte[]) data)[index];
            case BOOL: return ((boolean[]) data)[index] ? 1 : 0;
            case STRING: throw new InvalidArgumentException("a string tensor has no numeric elements");
            default: return (long) getDouble(index);
        }
    }

    /**
     * Gets a tensor with the same elements and another shape of the same element count, sharing the array.
     *
     * @param newShape the new dimensions
     * @return the reshaped tensor
     * @throws InvalidArgumentException when the element counts differ
     */
    public Tensor reshape(long... newShape) {
        int count = checkedElementCount(newShape);
        if (count != size) {
            throw new InvalidArgumentException("cannot reshape " + shapeString(shape) + " (" + size
                    + " elements) to " + shapeString(newShape));
        }
        long[] dims = newShape.length == 0 ? SCALAR : newShape.clone();
        return buffer == null ? new Tensor(type, dims, data, size) : new Tensor(type, dims, size, buffer, release);
    }

    /**
     * Computes the element count of a shape, refusing negative dimensions and counts too large for one array; during
     * a run, also counts beyond the run's limits ({@link RunMemory}), so that a kernel that sizes its output with this
     * method is stopped before it allocates.
     *
     * @param shape the dimensions
     * @return the element count
     * @throws InvalidArgumentException when a dimension is negative or the count is too large
     * @throws ResourceLimitException when the count is beyond a limit of the run
     */
    public static int checkedElementCount(long[] shape) {
        long count = 1;
        boolean zero = false;
        for (long d : shape) {
            if (d < 0) {
                throw new InvalidArgumentException("negative dimension in shape " + shapeString(shape));
            }
            if (d == 0) {
                zero = true;
            } else if (!zero) {
                count = count > MAX_ELEMENTS / d ? MAX_ELEMENTS + 1 : count * d;
            }
        }
        if (zero) {
            return 0;
        }
        if (count > MAX_ELEMENTS) {
            throw new InvalidArgumentException("shape " + shapeString(shape) + " has more than " + MAX_ELEMENTS
                    + " elements, too large to allocate");
        }
        RunMemory.checkElements(count);
        return (int) count;
    }

    /**
     * Formats a shape as {@code 1x3x224x224}, or {@code scalar} for rank 0.
     *
     * @param shape the dimensions
     * @return the text
     */
    public static String shapeString(long[] shape) {
        if (shape.length == 0) {
            return "scalar";
        }
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < shape.length; i++) {
            if (i > 0) {
                sb.append('x');
            }
            sb.append(shape[i]);
        }
        return sb.toString();
    }

    private Object typed(Class<?> wanted) {
        requireHeap();
        if (data.getClass() != wanted) {
            throw new InvalidArgumentException("this is a " + type + " tensor; its elements are a "
                    + data.getClass().getSimpleName() + ", not a " + wanted.getSimpleName());
        }
        return data;
    }

    private static void requireSupported(ElementType type) {
        if (!type.isSupported()) {
            throw new NotImplementedException("tensor element type " + type + " is not supported");
        }
    }

    /** Gives the type, the shape and up to the first 8 elements. */
    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder("Tensor[").append(type).append(' ').append(shapeString(shape))
                .append(": ");
        if (buffer != null) {
            return sb.append("off-heap, ").append(byteSize()).append(" bytes]").toString();
        }
        int n = Math.min(size, 8);
        for (int i = 0; i < n; i++) {
            if (i > 0) {
                sb.append(", ");
            }
            sb.append(type == ElementType.STRING ? ((String[]) data)[i] : formatNumber(i));
        }
        return sb.append(size > n ? ", ...]" : "]").toString();
    }

    private String formatNumber(int i) {
        if (type.isFloatingPoint() || type.isNarrowFloat()) {
            return Float.toString((float) getDouble(i));
        }
        return type == ElementType.BOOL ? Boolean.toString(((boolean[]) data)[i])
                : type == ElementType.UINT64 ? Long.toUnsignedString(getLong(i)) : Long.toString(getLong(i));
    }
}
