/**
 * The string and text-feature kernels: StringNormalizer, StringConcat, StringSplit, RegexFullMatch and
 * TfIdfVectorizer. Registered by {@link io.ortex.ep.cpu.ops.text.TextOps}.
 */
package io.ortex.ep.cpu.ops.text;
