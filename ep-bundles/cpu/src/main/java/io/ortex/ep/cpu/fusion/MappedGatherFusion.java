package io.ortex.ep.cpu.fusion;

import io.ortex.api.ElementType;
import io.ortex.api.Tensor;
import io.ortex.api.spi.NodeView;
import io.ortex.api.spi.ValueView;
import io.ortex.ep.cpu.ops.support.Shapes;
import java.nio.ByteBuffer;
import java.nio.FloatBuffer;
import java.util.List;

/**
 * A Gather along axis 0 from a large constant float32 table whose data lies in a file (a word-embedding table left
 * in the model file, or external data): the rows are read from a read-only mapping of the file
 * ({@link ValueView#mappedData()}) instead of a copy of the whole table on the heap, so only the pages of the rows
 * that runs ask for become resident, and they stay clean. A table the runtime cannot map is decoded onto the heap
 * once, as the plain Gather kernel would have it. A group of one node: it exists to drop the table from the inputs the
 * runtime decodes and feeds.
 */
final class MappedGatherFusion {
    /** The fusion's name. */
    static final String NAME = "MappedGather";
    /** Smaller tables are decoded as usual: a mapping costs a file page per row touched and pays off for large ones. */
    static final long MIN_BYTES = 1 << 20;

    private MappedGatherFusion() {
    }

    /**
     * Matches at a Gather node.
     *
     * @param gather the node
     * @return the match, or {@code null}
     */
    static FusionMatch match(NodeView gather) {
        if (!Pattern.is(gather, "Gather") || gather.inputs().size() != 2 || Pattern.output(gather) == null) {
            return null;
        }
        ValueView table = gather.inputs().get(0);
        ValueView indices = gather.inputs().get(1);
        if (table == null || indices == null || indices.isConstantInitializer() || table.externalData().isEmpty()) {
            return null;
        }
        ConstantWeight w = ConstantWeight.of(table);
        if (w == null || w.rank() < 1 || w.size() * Float.BYTES < MIN_BYTES) {
            return null;
        }
        long axis = gather.intAttr("axis", 0);
        if (axis != 0 && axis != -w.rank()) {
            return null;
        }
        long[] dims = new long[w.rank()];
        for (int d = 0; d < dims.length; d++) {
            dims[d] = w.dim(d);
        }
        String indicesName = indices.name();
        return new FusionMatch(NAME, List.of(gather), (inputNames, outputNames) -> {
            FloatBuffer rows = rowsOf(table, w);
            int ii = inputNames.indexOf(indicesName);
            if (rows == null || ii < 0 || outputNames.size() != 1) {
                return (in, ctx) -> null;
            }
            Lookup lookup = new Lookup(rows, dims);
            return (in, ctx) -> {
                Tensor idx = in[ii];
                if (idx.type() != ElementType.INT64 && idx.type() != ElementType.INT32) {
                    return null;
                }
                return lookup.gather(idx, ctx.allocateUninitialized(ElementType.FLOAT, lookup.outputShape(idx)));
            };
        }, true);
    }

    /** The rows: a view of the file's mapping, or of the table decoded onto the heap when it cannot be mapped. */
    private static FloatBuffer rowsOf(ValueView table, ConstantWeight w) {
        long bytes = w.size() * Float.BYTES;
        ByteBuffer mapped = table.mappedData().filter(b -> b.remaining() == bytes).orElse(null);
        if (mapped != null) {
            return mapped.asFloatBuffer();
        }
        Tensor t = w.decode();
        return t == null ? null : FloatBuffer.wrap(t.floats());
    }

    /** Reads rows of a table by index. Thread safe: absolute reads only. */
    private static final class Lookup {
        private final FloatBuffer rows;
        private final long[] dims;
        private final int rowLength;

        Lookup(FloatBuffer rows, long[] dims) {
            this.rows = rows;
            this.dims = dims.clone();
            long n = 1;
            for (int d = 1; d < dims.length; d++) {
                n *= dims[d];
            }
            this.rowLength = (int) n;
        }

        /** The indices' shape followed by a row's. */
        long[] outputShape(Tensor indices) {
            long[] is = indices.shape();
            long[] out = new long[is.length + dims.length - 1];
            System.arraycopy(is, 0, out, 0, is.length);
            System.arraycopy(dims, 1, out, is.length, dims.length - 1);
            Tensor.checkedElementCount(out);
            return out;
        }

        /** Copies the rows the indices name into {@code out}; negative indices count from the end. */
        Tensor[] gather(Tensor indices, Tensor out) {
            float[] dst = out.floats();
            int[] index = Shapes.indices(indices, dims[0], "indices");
            for (int i = 0; i < index.length; i++) {
                // a page the file no longer has (cut short under the session) fails as the JVM's InternalError,
                // which may surface a little later: the runtime names it at the step that ran this
                rows.get(index[i] * rowLength, dst, i * rowLength, rowLength);
            }
            return new Tensor[] {out};
        }
    }
}
