package io.ortex.ep.cpu.ops.tensor;

import io.ortex.api.Tensor;
import io.ortex.api.spi.NodeView;
import io.ortex.ep.cpu.CpuKernel;
import io.ortex.ep.cpu.OpRegistry;
import io.ortex.ep.cpu.ops.tensor.ScatterKernels.Reduction;
import java.util.Set;

/**
 * Registers the tensor ops: shape and data movement (Reshape, Transpose, Slice, Concat, Gather, Scatter, Pad, Tile,
 * ...), Cast, Where, Identity, Constant and the generators (ConstantOfShape, EyeLike, Range, OneHot, Trilu), TopK
 * and Unique, Resize and Upsample, GridSample, AffineGrid, CenterCropPad and BitCast. Every op here moves or
 * reinterprets elements rather than computing them, except the resampling ones.
 */
public final class TensorOps {
    private TensorOps() {
    }

    /**
     * Registers this category's ops.
     *
     * @param r the registry
     */
    public static void register(OpRegistry r) {
        registerShapes(r);
        registerMovement(r);
        registerIndexing(r);
        r.register("Cast", CastKernels::cast);
        r.register("CastLike", CastKernels::castLike);
        r.register("", "BitCast", 26, BitCastKernel::create);
        r.register("Where", node -> (in, ctx) -> new Tensor[] {WhereKernel.where(in[0], in[1], in[2])});
        r.register("Identity", node -> (in, ctx) -> new Tensor[] {in[0]});
        r.register("Constant", ConstantKernel::create);
        r.register("ConstantOfShape", GenerateKernels::constantOfShape);
        r.register("EyeLike", GenerateKernels::eyeLike);
        r.register("Range", GenerateKernels::range);
        r.register("OneHot", GenerateKernels::oneHot);
        r.register("Trilu", GenerateKernels::trilu);
        r.register("", "Resize", 10, 10, ResizeKernels::resize10);
        r.register("", "Resize", 11, ResizeKernels::resize);
        r.register("", "Upsample", 7, 8, node -> ResizeKernels.upsample(node, false));
        r.register("", "Upsample", 9, node -> ResizeKernels.upsample(node, true));
        r.register("", "GridSample", 16, 19, node -> GridSampleKernel.create(node, "bilinear"));
        r.register("", "GridSample", 20, node -> GridSampleKernel.create(node, "linear"));
        r.register("", "AffineGrid", 20, AffineGridKernel::create);
        r.register("", "CenterCropPad", 18, CenterCropPadKernel::create);
    }

    private static void registerShapes(OpRegistry r) {
        r.register("", "Reshape", 1, 4, ReshapeKernels::reshapeFromAttribute);
        r.register("", "Reshape", 5, 13, node -> ReshapeKernels.reshape(node, false));
        r.register("", "Reshape", 14, node -> ReshapeKernels.reshape(node, true));
        r.register("Flatten", ReshapeKernels::flatten);
        r.register("", "Squeeze", 1, 12, node -> ReshapeKernels.squeeze(node, false));
        r.register("", "Squeeze", 13, node -> ReshapeKernels.squeeze(node, true));
        r.register("", "Unsqueeze", 1, 12, node -> ReshapeKernels.unsqueeze(node, false));
        r.register("", "Unsqueeze", 13, node -> ReshapeKernels.unsqueeze(node, true));
        r.register("", "Shape", 1, 14, node -> ReshapeKernels.shape(node, false));
        r.register("", "Shape", 15, node -> ReshapeKernels.shape(node, true));
        r.register("Size", ReshapeKernels::size);
    }

    private static void registerMovement(OpRegistry r) {
        r.register("Transpose", TransposeKernels::transpose);
        r.register("DepthToSpace", TransposeKernels::depthToSpace);
        r.register("SpaceToDepth", TransposeKernels::spaceToDepth);
        r.register("", "Concat", 1, 3, node -> SliceKernels.concat(node, false));
        r.register("", "Concat", 4, node -> SliceKernels.concat(node, true));
        r.register("", "Slice", 1, 9, SliceKernels::sliceFromAttributes);
        r.register("", "Slice", 10, SliceKernels::slice);
        r.register("", "Split", 1, 12, node -> SliceKernels.split(node, false, false));
        r.register("", "Split", 13, 17, node -> SliceKernels.split(node, true, false));
        r.register("", "Split", 18, node -> SliceKernels.split(node, true, true));
        r.register("Expand", RepeatKernels::expand);
        r.register("Tile", RepeatKernels::tile);
        r.register("", "Pad", 1, 1, node -> PadKernel.fromAttributes(node, "paddings"));
        r.register("", "Pad", 2, 10, node -> PadKernel.fromAttributes(node, "pads"));
        r.register("", "Pad", 11, 17, node -> PadKernel.fromInputs(node, false, false));
        r.register("", "Pad", 18, 18, node -> PadKernel.fromInputs(node, true, false));
        r.register("", "Pad", 19, node -> PadKernel.fromInputs(node, true, true));
        r.register("ReverseSequence", ReverseSequenceKernel::create);
    }

    private static void registerIndexing(OpRegistry r) {
        r.register("Gather", GatherKernels::gather);
        r.register("GatherElements", GatherKernels::gatherElements);
        r.register("GatherND", GatherKernels::gatherND);
        r.register("Compress", GatherKernels::compress);
        scatter(r, "ScatterElements", ScatterKernels::scatterElements);
        scatter(r, "Scatter", ScatterKernels::scatterElements);
        scatter(r, "ScatterND", ScatterKernels::scatterND);
        r.register("", "TopK", 1, 9, node -> SortKernels.topK(node, false, false));
        r.register("", "TopK", 10, 10, node -> SortKernels.topK(node, true, false));
        r.register("", "TopK", 11, node -> SortKernels.topK(node, true, true));
        r.register("Unique", SortKernels::unique);
        r.register("NonZero", NonZeroKernel::create);
    }

    /** A scatter kernel's factory, given the reductions that the node's opset defines. */
    private interface ScatterFactory {
        CpuKernel create(NodeView node, Set<Reduction> reductions);
    }

    /** The attribute {@code reduction} gained add and mul in opset 16, max and min in 18. */
    private static void scatter(OpRegistry r, String op, ScatterFactory f) {
        Set<Reduction> none = Set.of(Reduction.NONE);
        Set<Reduction> addMul = Set.of(Reduction.NONE, Reduction.ADD, Reduction.MUL);
        Set<Reduction> all = Set.of(Reduction.values());
        r.register("", op, 1, 15, node -> f.create(node, none));
        r.register("", op, 16, 17, node -> f.create(node, addMul));
        r.register("", op, 18, node -> f.create(node, all));
    }
}
