package io.ortex.runtime.internal.cache;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import io.ortex.onnx.proto.Onnx.GraphProto;
import io.ortex.onnx.proto.Onnx.ModelProto;
import io.ortex.onnx.proto.Onnx.NodeProto;
import io.ortex.onnx.proto.Onnx.TensorProto;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Cache entries leave out the weights their source holds, and get them back from it. */
class SourceInitializersTest {
    private static TensorProto tensor(String name, int bytes, int seed) {
        byte[] data = new byte[bytes];
        for (int i = 0; i < data.length; i++) {
            data[i] = (byte) (i * 31 + seed);
        }
        return TensorProto.newBuilder().setName(name).setDataType(1).addDims(bytes / 4)
                .setRawData(ByteString.copyFrom(data)).build();
    }

    private static ModelProto model(TensorProto... initializers) {
        GraphProto.Builder g = GraphProto.newBuilder().setName("g")
                .addNode(NodeProto.newBuilder().setOpType("Gather").addInput("table").addInput("ids")
                        .addOutput("y"));
        for (TensorProto t : initializers) {
            g.addInitializer(t);
        }
        return ModelProto.newBuilder().setIrVersion(8).setGraph(g).build();
    }

    @Test
    void weightsTheSourceHoldsAreLeftOutAndComeBack() {
        TensorProto table = tensor("table", 1 << 16, 1);
        ModelProto source = model(table, tensor("other", 64, 2));
        TensorProto changed = tensor("folded", 32, 3);
        ModelProto compiled = model(table, changed);

        ModelProto stored = SourceInitializers.strip(compiled, source);
        assertEquals(List.of("folded"), stored.getGraph().getInitializerList().stream().map(TensorProto::getName)
                .toList(), "only what the source does not hold stays");
        assertTrue(stored.getSerializedSize() < 1024, "the table's bytes are not in the entry");

        ModelProto whole = SourceInitializers.restore(stored, source);
        assertEquals(2, whole.getGraph().getInitializerCount());
        assertTrue(whole.getGraph().getInitializerList().contains(table));
        assertTrue(whole.getMetadataPropsList().isEmpty(), "the cache's own metadata is gone again");
    }

    @Test
    void anInitializerThatDiffersFromTheSourcesStays() {
        ModelProto source = model(tensor("table", 256, 1));
        ModelProto compiled = model(tensor("table", 256, 9));
        ModelProto stored = SourceInitializers.strip(compiled, source);
        assertEquals(1, stored.getGraph().getInitializerCount());
        assertEquals(compiled.getGraph(), SourceInitializers.restore(stored, source).getGraph());
    }

    @Test
    void anEntryThatDoesNotFitItsSourceIsRefused() {
        ModelProto source = model(tensor("table", 256, 1));
        ModelProto stored = SourceInitializers.strip(model(tensor("table", 256, 1)), source);
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> SourceInitializers.restore(stored, model()));
        assertTrue(e.getMessage().contains("'table'"), e.getMessage());
        assertThrows(IllegalStateException.class, () -> SourceInitializers.restore(model(), source),
                "an entry that does not list them");
    }
}
