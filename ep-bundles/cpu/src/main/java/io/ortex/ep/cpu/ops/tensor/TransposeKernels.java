package io.ortex.ep.cpu.ops.tensor;

import io.ortex.api.InvalidArgumentException;
import io.ortex.api.InvalidModelException;
import io.ortex.api.Tensor;
import io.ortex.api.spi.NodeView;
import io.ortex.ep.cpu.CpuKernel;
import io.ortex.ep.cpu.ops.support.Shapes;

/** Axis permutations: Transpose, DepthToSpace and SpaceToDepth, all through {@link StridedCopy}. */
final class TransposeKernels {
    private TransposeKernels() {
    }

    /**
     * Transpose: {@code perm} gives the input axis of each output axis; the default reverses the axes.
     *
     * @param node the node
     * @return the kernel
     */
    static CpuKernel transpose(NodeView node) {
        long[] permAttr = node.intsAttr("perm", null);
        return (in, ctx) -> {
            Tensor x = in[0];
            int rank = x.rank();
            int[] perm = new int[rank];
            if (permAttr == null) {
                for (int i = 0; i < rank; i++) {
                    perm[i] = rank - 1 - i;
                }
            } else {
                if (permAttr.length != rank) {
                    throw new InvalidArgumentException("perm has " + permAttr.length + " entries but the input has rank "
                            + rank);
                }
                boolean[] seen = new boolean[rank];
                for (int i = 0; i < rank; i++) {
                    int p = Shapes.axis(permAttr[i], rank, "perm entry");
                    if (seen[p]) {
                        throw new InvalidArgumentException("perm repeats axis " + p);
                    }
                    seen[p] = true;
                    perm[i] = p;
                }
            }
            return new Tensor[] {StridedCopy.transpose(x, perm, ctx)};
        };
    }

    /**
     * DepthToSpace: moves channel blocks into spatial blocks, mode DCR (default) or CRD (opset 11+).
     *
     * @param node the node
     * @return the kernel
     */
    static CpuKernel depthToSpace(NodeView node) {
        int b = blocksize(node);
        String mode = node.stringAttr("mode", "DCR");
        if (!mode.equals("DCR") && !mode.equals("CRD")) {
            throw new InvalidModelException("attribute 'mode' must be DCR or CRD, not '" + mode + "'");
        }
        boolean dcr = mode.equals("DCR");
        return (in, ctx) -> {
            Tensor x = in[0];
            long[] s = check4d(x, "DepthToSpace");
            long n = s[0];
            long c = s[1];
            long h = s[2];
            long w = s[3];
            if (c % ((long) b * b) != 0) {
                throw new InvalidArgumentException("channels " + c + " are not a multiple of blocksize^2 " + b * b);
            }
            long oc = c / ((long) b * b);
            long[] view;
            int[] perm;
            if (dcr) {
                view = new long[] {n, b, b, oc, h, w};
                perm = new int[] {0, 3, 4, 1, 5, 2};
            } else {
                view = new long[] {n, oc, b, b, h, w};
                perm = new int[] {0, 1, 4, 2, 5, 3};
            }
            Tensor t = StridedCopy.transpose(x.reshape(view), perm, ctx);
            return new Tensor[] {t.reshape(n, oc, h * b, w * b)};
        };
    }

    /**
     * SpaceToDepth: moves spatial blocks into channels.
     *
     * @param node the node
     * @return the kernel
     */
    static CpuKernel spaceToDepth(NodeView node) {
        int b = blocksize(node);
        return (in, ctx) -> {
            Tensor x = in[0];
            long[] s = check4d(x, "SpaceToDepth");
            if (s[2] % b != 0 || s[3] % b != 0) {
                throw new InvalidArgumentException("spatial size " + s[2] + "x" + s[3]
                        + " is not a multiple of blocksize " + b);
            }
            long[] view = {s[0], s[1], s[2] / b, b, s[3] / b, b};
            Tensor t = StridedCopy.transpose(x.reshape(view), new int[] {0, 3, 5, 1, 2, 4}, ctx);
            return new Tensor[] {t.reshape(s[0], s[1] * b * b, s[2] / b, s[3] / b)};
        };
    }

    private static int blocksize(NodeView node) {
        long b = node.intAttr("blocksize", -1);
        if (b <= 0) {
            throw new InvalidModelException("attribute 'blocksize' is required and must be positive");
        }
        return (int) b;
    }

    private static long[] check4d(Tensor x, String op) {
        if (x.rank() != 4) {
            throw new InvalidArgumentException(op + " needs a 4-D input, got shape " + Tensor.shapeString(x.shape()));
        }
        return x.shape();
    }
}
