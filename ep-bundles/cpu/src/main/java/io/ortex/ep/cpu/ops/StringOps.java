package io.ortex.ep.cpu.ops;

import io.ortex.ep.cpu.OpRegistry;

/**
 * String and text-feature ops: StringNormalizer, StringConcat, StringSplit, RegexFullMatch and TfIdfVectorizer.
 */
public final class StringOps {
    private StringOps() {
    }

    /**
     * Registers this group's ops.
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
