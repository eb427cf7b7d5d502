package io.ortex.ep.cpu.ops;

import io.ortex.ep.cpu.OpRegistry;

/**
 * Shape and data-movement ops (Reshape, Transpose, Concat, Gather, Slice, ...). Every op here moves elements of any
 * type without converting them; the kernels live in the files named after their families.
 */
public final class ShapeOps {
    private ShapeOps() {
    }

    /**
     * Registers this group's ops.
     *
     * @param r the registry
     */
    public static void register(OpRegistry r) {
        r.register("Reshape", ReshapeKernels::reshape);
        r.register("Flatten", ReshapeKernels::flatten);
        r.register("Squeeze", ReshapeKernels::squeeze);
        r.register("Unsqueeze", ReshapeKernels::unsqueeze);
        r.register("Shape", ReshapeKernels::shape);
        r.register("Size", ReshapeKernels::size);
        r.register("Transpose", TransposeKernels::transpose);
        r.register("DepthToSpace", TransposeKernels::depthToSpace);
        r.register("SpaceToDepth", TransposeKernels::spaceToDepth);
        r.register("Concat", SliceKernels::concat);
        r.register("Slice", SliceKernels::slice);
        r.register("Split", SliceKernels::split);
        r.register("Gather", GatherKernels::gather);
        r.register("GatherElements", GatherKernels::gatherElements);
        r.register("GatherND", GatherKernels::gatherND);
        r.register("Compress", GatherKernels::compress);
        r.register("Expand", RepeatKernels::expand);
        r.register("Tile", RepeatKernels::tile);
        r.register("Pad", PadKernel::create);
        r.register("ConstantOfShape", GenerateKernels::constantOfShape);
        r.register("EyeLike", GenerateKernels::eyeLike);
        r.register("Range", GenerateKernels::range);
        r.register("OneHot", GenerateKernels::oneHot);
        r.register("Trilu", GenerateKernels::trilu);
        r.register("ScatterElements", ScatterKernels::scatterElements);
        r.register("Scatter", ScatterKernels::scatterElements);
        r.register("ScatterND", ScatterKernels::scatterND);
        r.register("TopK", SortKernels::topK);
        r.register("Unique", SortKernels::unique);
        r.register("CumSum", SequenceKernels::cumSum);
        r.register("NonZero", SequenceKernels::nonZero);
        r.register("ReverseSequence", SequenceKernels::reverseSequence);
    }
}
