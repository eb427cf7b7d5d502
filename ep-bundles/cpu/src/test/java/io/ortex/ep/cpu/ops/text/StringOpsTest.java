package io.ortex.ep.cpu.ops.text;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.ortex.api.InvalidArgumentException;
import io.ortex.api.Tensor;
import io.ortex.ep.cpu.OneNodeModel;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Focused cases of the string ops and TfIdfVectorizer, worked out by hand. */
class StringOpsTest {
    private static Tensor strings(long[] shape, String... v) {
        return Tensor.ofStrings(v, shape);
    }

    @Test
    void normalizerDropsStopwordsIgnoringCaseAndChangesCase() {
        Tensor x = strings(new long[] {1, 4}, "Monday", "tuesday", "MONDAY", "Straße");
        Tensor y = new OneNodeModel("StringNormalizer", 10).in(x).strings("stopwords", "monday")
                .attr("case_change_action", "UPPER").run1();
        assertArrayEquals(new long[] {1, 2}, y.shape());
        assertArrayEquals(new String[] {"TUESDAY", "STRASSE"}, y.strings());
        Tensor sensitive = new OneNodeModel("StringNormalizer", 10).in(strings(new long[] {3}, "Monday", "monday",
                "x")).strings("stopwords", "monday").attr("is_case_sensitive", 1L).attr("case_change_action", "LOWER")
                .run1();
        assertArrayEquals(new String[] {"monday", "x"}, sensitive.strings());
    }

    @Test
    void normalizerLeavesOneEmptyStringWhenEverythingIsDropped() {
        Tensor y = new OneNodeModel("StringNormalizer", 10).in(strings(new long[] {2}, "a", "A"))
                .strings("stopwords", "a").run1();
        assertArrayEquals(new long[] {1}, y.shape());
        assertArrayEquals(new String[] {""}, y.strings());
    }

    @Test
    void concatBroadcasts() {
        Tensor y = new OneNodeModel("StringConcat", 20).in(strings(new long[] {2, 1}, "a", "b"))
                .in(strings(new long[] {3}, "1", "2", "")).run1();
        assertArrayEquals(new long[] {2, 3}, y.shape());
        assertArrayEquals(new String[] {"a1", "a2", "a", "b1", "b2", "b"}, y.strings());
    }

    @Test
    void splitAtADelimiterKeepsEmptyPiecesAndPads() {
        List<Tensor> out = new OneNodeModel("StringSplit", 20).in(strings(new long[] {3}, "a,,b", "c", ""))
                .attr("delimiter", ",").outputs(2).run();
        assertArrayEquals(new long[] {3, 3}, out.get(0).shape());
        assertArrayEquals(new String[] {"a", "", "b", "c", "", "", "", "", ""}, out.get(0).strings());
        assertArrayEquals(new long[] {3, 1, 1}, out.get(1).longs());
    }

    @Test
    void splitAtWhitespaceWithMaxsplit() {
        List<Tensor> out = new OneNodeModel("StringSplit", 20).in(strings(new long[] {2}, "  a  b c ", "   "))
                .attr("maxsplit", 1L).outputs(2).run();
        assertArrayEquals(new String[] {"a", "b c ", "", ""}, out.get(0).strings());
        assertArrayEquals(new long[] {2, 0}, out.get(1).longs());
    }

    @Test
    void regexFullMatchNeedsTheWholeString() {
        Tensor y = new OneNodeModel("RegexFullMatch", 20).in(strings(new long[] {3}, "ab12", "xab12", "ab"))
                .attr("pattern", "ab\\d+").run1();
        assertArrayEquals(new boolean[] {true, false, false}, y.booleans());
        Tensor empty = new OneNodeModel("RegexFullMatch", 20).in(strings(new long[] {0})).attr("pattern", "a").run1();
        assertArrayEquals(new long[] {0}, empty.shape());
    }

    @Test
    void regexRejectsNonStrings() {
        assertThrows(InvalidArgumentException.class, () -> new OneNodeModel("RegexFullMatch", 20)
                .in(Tensor.ofLongs(new long[] {1}, 1)).attr("pattern", "a").run1());
    }

    @Test
    void tfIdfCountsUnigramsOnceAndSkipGramsPerDistance() {
        // pool: unigrams {1, 2} -> outputs 0, 1; bigram (1, 2) -> output 2
        Tensor x = Tensor.ofLongs(new long[] {1, 3, 2, 1, 2}, 5);
        OneNodeModel base = new OneNodeModel("TfIdfVectorizer", 9).in(x).attr("min_gram_length", 1L)
                .attr("max_gram_length", 2L).attr("max_skip_count", 1L).attr("mode", "TF")
                .ints("ngram_counts", 0, 2).ints("ngram_indexes", 0, 1, 2).ints("pool_int64s", 1, 2, 1, 2);
        // bigrams (1,2) adjacent: at 3-4; one apart: 0-2 -> 2 in all
        assertArrayEquals(new float[] {2, 2, 2}, base.run1().floats());
        Tensor tfidf = new OneNodeModel("TfIdfVectorizer", 9).in(strings(new long[] {2, 3}, "a", "b", "a", "b", "x",
                "b")).attr("min_gram_length", 1L).attr("max_gram_length", 2L).attr("max_skip_count", 0L)
                .attr("mode", "TFIDF").ints("ngram_counts", 0, 2).ints("ngram_indexes", 0, 1, 2)
                .strings("pool_strings", "a", "b", "a", "b").floats("weights", 1, 0.5f, 3).run1();
        assertArrayEquals(new long[] {2, 3}, tfidf.shape());
        assertArrayEquals(new float[] {2, 0.5f, 3, 0, 1, 0}, tfidf.floats());
        Tensor idf = new OneNodeModel("TfIdfVectorizer", 9).in(x).attr("min_gram_length", 2L)
                .attr("max_gram_length", 2L).attr("max_skip_count", 0L).attr("mode", "IDF")
                .ints("ngram_counts", 0, 2).ints("ngram_indexes", 0, 1, 2).ints("pool_int64s", 1, 2, 1, 2).run1();
        assertArrayEquals(new float[] {0, 0, 1}, idf.floats());
    }
}
