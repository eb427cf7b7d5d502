package io.ortex.ep.cpu.ops.text;

import io.ortex.ep.cpu.OpRegistry;

/**
 * Registers the string and text-feature ops: StringNormalizer, StringConcat, StringSplit, RegexFullMatch and
 * TfIdfVectorizer.
 */
public final class TextOps {
    private TextOps() {
    }

    /**
     * Registers this category's ops.
     *
     * @param r the registry
     */
    public static void register(OpRegistry r) {
        r.register("", "StringNormalizer", 10, StringKernels::normalizer);
        r.register("", "StringConcat", 20, StringKernels::concat);
        r.register("", "StringSplit", 20, StringKernels::split);
        r.register("", "RegexFullMatch", 20, StringKernels::regexFullMatch);
        r.register("", "TfIdfVectorizer", 9, TfIdfVectorizerKernel::create);
    }
}
