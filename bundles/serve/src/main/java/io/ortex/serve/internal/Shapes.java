package io.ortex.serve.internal;

/** Shapes in messages, written as the protocol writes them: {@code [2,3]}, {@code []} for a scalar. */
final class Shapes {
    private Shapes() {
    }

    /**
     * Writes a shape.
     *
     * @param shape the dimensions
     * @return the text
     */
    static String text(long[] shape) {
        StringBuilder sb = new StringBuilder("[");
        for (int i = 0; i < shape.length; i++) {
            sb.append(i == 0 ? "" : ",").append(shape[i]);
        }
        return sb.append(']').toString();
    }
}
