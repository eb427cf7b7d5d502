package io.ortex.shell.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class WordPieceTokenizerTest {
    private static final int UNK = 1;
    private static final int CLS = 2;
    private static final int SEP = 3;

    /** A tokenizer.json in Hugging Face's layout, with objects and arrays before and after model.vocab. */
    private static final String JSON = """
            {
              "version": "1.0",
              "truncation": null,
              "added_tokens": [
                {"id": 0, "content": "[PAD]", "special": true},
                {"id": 1, "content": "[UNK]", "special": true}
              ],
              "normalizer": {"type": "BertNormalizer", "lowercase": true, "strip_accents": null},
              "model": {
                "type": "WordPiece",
                "unk_token": "[UNK]",
                "continuing_subword_prefix": "##",
                "max_input_chars_per_word": 100,
                "vocab": {
                  "[PAD]": 0, "[UNK]": 1, "[CLS]": 2, "[SEP]": 3,
                  "hello": 4, "world": 5, "un": 6, "##aff": 7, "##able": 8, ",": 9, "!": 10,
                  "cafe": 11, "##s": 12, "naive": 13, "'": 14, "\\u4f60": 15, "\\u597d": 16, "a": 17, "##a": 18,
                  "##\\ud83d\\ude00": 19
                }
              },
              "decoder": {"type": "WordPiece", "prefix": "##", "cleanup": true}
            }
            """;

    private static WordPieceTokenizer tokenizer;

    @BeforeAll
    static void read() throws IOException {
        tokenizer = WordPieceTokenizer.read(stream(JSON));
    }

    private static ByteArrayInputStream stream(String s) {
        return new ByteArrayInputStream(s.getBytes(StandardCharsets.UTF_8));
    }

    private static void assertTokens(String text, long... inner) {
        long[] want = new long[inner.length + 2];
        want[0] = CLS;
        System.arraycopy(inner, 0, want, 1, inner.length);
        want[want.length - 1] = SEP;
        assertArrayEquals(want, tokenizer.encode(text), text);
    }

    @Test
    void wordsAreWrappedInClsAndSep() {
        assertTokens("hello world", 4, 5);
        assertTokens("");
        assertTokens("   \t\n ");
    }

    @Test
    void upperCaseIsLowered() {
        assertTokens("Hello WORLD", 4, 5);
    }

    @Test
    void punctuationIsSplitOff() {
        assertTokens("Hello, world!", 4, 9, 5, 10);
        assertTokens("hello,world!!", 4, 9, 5, 10, 10);
        assertTokens("world's", 5, 14, UNK);
        assertTokens("worlds'", 5, 12, 14);
    }

    @Test
    void unicodePunctuationIsSplitOffToo() {
        assertTokens("hello\u3002world\u00bf", 4, UNK, 5, UNK);
        assertTokens("\u201chello\u201d", UNK, 4, UNK);
    }

    @Test
    void wordPiecesTakeTheLongestMatchFirst() {
        assertTokens("unaffable", 6, 7, 8);
        assertTokens("hellos worlds", 4, 12, 5, 12);
        assertTokens("aaa", 17, 18, 18);
    }

    @Test
    void accentsAreStripped() {
        assertTokens("Caf\u00e9", 11);
        assertTokens("CAFE\u0301S", 11, 12);
        assertTokens("na\u00efve", 13);
    }

    @Test
    void unknownWordsBecomeOneUnk() {
        assertTokens("xyz", UNK);
        assertTokens("unxyz", UNK);
        assertTokens("hello xyz world", 4, UNK, 5);
    }

    @Test
    void aWordLongerThan100CharactersIsUnk() {
        assertTokens("a".repeat(100), repeatA(100));
        assertTokens("a".repeat(101), UNK);
    }

    private static long[] repeatA(int n) {
        long[] ids = new long[n];
        java.util.Arrays.fill(ids, 18);
        ids[0] = 17;
        return ids;
    }

    @Test
    void everySpaceSeparatorSplitsWords() {
        assertTokens("hello\u00a0world", 4, 5);
        assertTokens("hello\u3000world\u2009!", 4, 5, 10);
    }

    @Test
    void controlAndFormatCharactersAreDropped() {
        assertTokens("hel\u0000lo", 4);
        assertTokens("hel\u200blo wor\u00adld", 4, 5);
        assertTokens("hel\ufffdlo\u0007", 4);
    }

    @Test
    void cjkIdeographsAreTokensOfTheirOwn() {
        assertTokens("\u4f60\u597d", 15, 16);
        assertTokens("hello\u4f60world", 4, 15, 5);
    }

    @Test
    void charactersOutsideTheBmpCountOnce() {
        assertTokens("hello \ud83d\ude00", 4, UNK);
        long[] ids = repeatA(100);
        ids[99] = 19;
        assertTokens("a".repeat(99) + "\ud83d\ude00", ids);
    }

    @Test
    void aVocabularyWithoutASpecialTokenIsRefused() {
        IOException e = assertThrows(IOException.class, () -> WordPieceTokenizer.read(stream(
                "{\"model\": {\"vocab\": {\"[UNK]\": 0, \"[SEP]\": 1, \"hello\": 2}}}")));
        assertTrue(e.getMessage().contains("[CLS]"), e.getMessage());
    }

    @Test
    void notAWordPieceTokenizerIsRefused() {
        IOException noVocab = assertThrows(IOException.class, () -> WordPieceTokenizer.read(stream(
                "{\"model\": {\"type\": \"BPE\"}}")));
        assertTrue(noVocab.getMessage().contains("model.vocab"), noVocab.getMessage());
        IOException unigram = assertThrows(IOException.class, () -> WordPieceTokenizer.read(stream(
                "{\"model\": {\"type\": \"Unigram\", \"vocab\": [[\"[UNK]\", 0.0], [\"[CLS]\", 0.0]]}}")));
        assertTrue(unigram.getMessage().contains("model.vocab"), unigram.getMessage());
        assertThrows(IOException.class, () -> WordPieceTokenizer.read(stream("[1, 2]")));
        assertThrows(IOException.class, () -> WordPieceTokenizer.read(stream("{\"model\": ")));
    }
}
