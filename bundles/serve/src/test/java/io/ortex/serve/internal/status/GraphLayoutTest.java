package io.ortex.serve.internal.status;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ortex.api.ElementType;
import io.ortex.testing.ModelBuilder;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Reading a model file's graph and laying it out. */
class GraphLayoutTest {
    @TempDir
    Path dir;

    private Path diamond() throws IOException {
        return new ModelBuilder().opset(17)
                .input("x", ElementType.FLOAT, 2).output("y", ElementType.FLOAT, 2)
                .floats("w", new long[] {2}, 1f, 2f)
                .node("Relu", "left", List.of("x"), List.of("a"))
                .node("Neg", "", List.of("x"), List.of("b"))
                .node("Constant", "c", List.of(), List.of("k"))
                .node("Add", "join", List.of("a", "b"), List.of("s"))
                .node("Mul", "scale", List.of("s", "k"), List.of("t"))
                .node("Add", "bias", List.of("t", "w"), List.of("y"))
                .write(dir.resolve("m.onnx"));
    }

    @Test
    void readsNodesAndEdgesLeavingInitializersOut() throws IOException {
        GraphOutline g = GraphOutline.read(diamond());
        assertEquals(List.of("x"), g.inputs());
        assertEquals(List.of("y"), g.outputs());
        assertEquals(6, g.nodes().size());
        assertEquals("Neg_1", g.nodes().get(1).name(), "an unnamed node as the runtime names it");
        assertEquals(List.of("a", "b"), g.nodes().get(3).inputs());
    }

    @Test
    void everyEdgePointsDownAndNoBoxesOverlap() throws IOException {
        GraphLayout layout = GraphLayout.of(GraphOutline.read(diamond()));
        List<GraphLayout.Box> boxes = layout.boxes();
        assertEquals(8, boxes.size());  // one input, six nodes, one output
        assertEquals(8, layout.edges().size());  // x twice, a, b, k, s, t and y (w is an initializer: none)
        for (GraphLayout.Edge e : layout.edges()) {
            assertTrue(boxes.get(e.to()).y() > boxes.get(e.from()).y(), e.toString());
        }
        for (int i = 0; i < boxes.size(); i++) {
            for (int j = i + 1; j < boxes.size(); j++) {
                GraphLayout.Box a = boxes.get(i);
                GraphLayout.Box b = boxes.get(j);
                boolean apart = a.y() != b.y() || Math.abs(a.x() - b.x()) >= GraphLayout.BOX_WIDTH;
                assertTrue(apart, a + " overlaps " + b);
                assertTrue(a.x() >= 0 && a.x() + GraphLayout.BOX_WIDTH <= layout.width(), a.toString());
            }
        }
        GraphLayout.Box constant = boxes.get(1 + 2);
        GraphLayout.Box mul = boxes.get(1 + 4);
        assertEquals(mul.y() - GraphLayout.BOX_HEIGHT - GraphLayout.GAP_Y, constant.y(),
                "a node that reads nothing sits just above its reader");
    }

    @Test
    void drawsNodesNotRunInTheirOwnColour() throws IOException {
        EpColours colours = new EpColours(List.of("X", "CPUExecutionProvider"));
        assertEquals("#a0cbe8", colours.colour("CPUExecutionProvider"));
        String svg = GraphSvg.draw(GraphOutline.read(diamond()), Map.of("left", "X", "join", "CPUExecutionProvider"),
                colours);
        assertTrue(svg.contains("data-node=\"left\" data-op=\"Relu\" data-ep=\"X\""), svg);
        assertTrue(svg.contains("fill=\"" + colours.colour("X") + "\""), svg);
        assertTrue(svg.contains("data-node=\"scale\" data-op=\"Mul\" data-ep=\"\""), svg);
        assertTrue(svg.contains("fill=\"" + EpColours.NOT_RUN + "\""), svg);
    }

    @Test
    void refusesAFileThatIsNotAModelNamingIt() throws IOException {
        Path bad = Files.write(dir.resolve("bad.onnx"), new byte[] {(byte) 0xff, (byte) 0xff, 0x01, 0x02});
        IOException e = assertThrows(IOException.class, () -> GraphOutline.read(bad));
        assertTrue(e.getMessage().contains(bad.toString()), e.getMessage());
        Path empty = Files.write(dir.resolve("empty.onnx"), new byte[0]);
        IOException none = assertThrows(IOException.class, () -> GraphOutline.read(empty));
        assertTrue(none.getMessage().contains("empty.onnx") && none.getMessage().contains("no graph"),
                none.getMessage());
        assertFalse(none.getMessage().isEmpty());
    }
}
