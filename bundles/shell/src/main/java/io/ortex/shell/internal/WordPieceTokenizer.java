package io.ortex.shell.internal;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;
import java.io.InputStream;
import java.text.Normalizer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A BERT WordPiece tokenizer (lower-casing, accent stripping, punctuation splitting, greedy longest-match word
 * pieces) reading its vocabulary from a Hugging Face {@code tokenizer.json}. Enough for the demo's sentences.
 */
public final class WordPieceTokenizer {
    private static final int MAX_WORD_CHARS = 100;

    private final Map<String, Integer> vocab;
    private final int unk;
    private final int cls;
    private final int sep;

    private WordPieceTokenizer(Map<String, Integer> vocab) throws IOException {
        this.vocab = vocab;
        this.unk = id("[UNK]");
        this.cls = id("[CLS]");
        this.sep = id("[SEP]");
    }

    private int id(String token) throws IOException {
        Integer id = vocab.get(token);
        if (id == null) {
            throw new IOException("tokenizer.json has no " + token + " in model.vocab");
        }
        return id;
    }

    /**
     * Reads the vocabulary ({@code model.vocab}) of a {@code tokenizer.json}.
     *
     * @param json the file's content
     * @return the tokenizer
     * @throws IOException when the JSON cannot be read
     */
    public static WordPieceTokenizer read(InputStream json) throws IOException {
        Map<String, Integer> vocab = new HashMap<>();
        try (JsonParser p = new JsonFactory().createParser(json)) {
            if (p.nextToken() != JsonToken.START_OBJECT) {
                throw new IOException("tokenizer.json is not a JSON object");
            }
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String field = p.currentName();
                p.nextToken();
                if (!field.equals("model")) {
                    p.skipChildren();
                    continue;
                }
                while (p.nextToken() == JsonToken.FIELD_NAME) {
                    String inner = p.currentName();
                    p.nextToken();
                    if (!inner.equals("vocab")) {
                        p.skipChildren();
                        continue;
                    }
                    if (p.currentToken() != JsonToken.START_OBJECT) {
                        throw new IOException("tokenizer.json model.vocab is not an object of token ids: only "
                                + "WordPiece vocabularies are supported");
                    }
                    while (p.nextToken() == JsonToken.FIELD_NAME) {
                        String token = p.currentName();
                        p.nextToken();
                        vocab.put(token, p.getIntValue());
                    }
                }
            }
        }
        if (vocab.isEmpty()) {
            throw new IOException("tokenizer.json has no model.vocab");
        }
        return new WordPieceTokenizer(vocab);
    }

    /**
     * Tokenizes a sentence into ids, with {@code [CLS]} first and {@code [SEP]} last.
     *
     * @param text the sentence
     * @return the token ids
     */
    public long[] encode(String text) {
        List<Long> ids = new ArrayList<>();
        ids.add((long) cls);
        for (String word : basicTokens(text)) {
            wordPieces(word, ids);
        }
        ids.add((long) sep);
        return ids.stream().mapToLong(Long::longValue).toArray();
    }

    /**
     * BERT's basic tokenizer: drops NUL, U+FFFD and control or format characters; splits on whitespace (space
     * separators included); lower-cases and strips accents; makes each punctuation mark and each CJK ideograph a token
     * of its own.
     */
    private static List<String> basicTokens(String text) {
        String norm = Normalizer.normalize(text.toLowerCase(java.util.Locale.ROOT), Normalizer.Form.NFD)
                .replaceAll("\\p{Mn}", "");
        List<String> tokens = new ArrayList<>();
        StringBuilder word = new StringBuilder();
        for (int i = 0; i < norm.length(); ) {
            int c = norm.codePointAt(i);
            i += Character.charCount(c);
            if (isWhitespace(c)) {
                flush(word, tokens);
                continue;
            }
            if (c == 0 || c == 0xFFFD || isControl(c)) {
                continue; // dropped without splitting the word, as BERT's text cleaning does
            }
            if (isPunctuation(c) || isCjk(c)) {
                flush(word, tokens);
                tokens.add(new String(Character.toChars(c)));
            } else {
                word.appendCodePoint(c);
            }
        }
        flush(word, tokens);
        return tokens;
    }

    private static boolean isWhitespace(int c) {
        return c == ' ' || c == '\t' || c == '\n' || c == '\r' || Character.getType(c) == Character.SPACE_SEPARATOR;
    }

    private static boolean isControl(int c) {
        int type = Character.getType(c);
        return type == Character.CONTROL || type == Character.FORMAT;
    }

    /** The CJK Unified Ideographs blocks, as BERT's tokenizer lists them (not Hangul, Hiragana or Katakana). */
    private static boolean isCjk(int c) {
        return (c >= 0x4E00 && c <= 0x9FFF) || (c >= 0x3400 && c <= 0x4DBF) || (c >= 0x20000 && c <= 0x2A6DF)
                || (c >= 0x2A700 && c <= 0x2B73F) || (c >= 0x2B740 && c <= 0x2B81F)
                || (c >= 0x2B820 && c <= 0x2CEAF) || (c >= 0xF900 && c <= 0xFAFF) || (c >= 0x2F800 && c <= 0x2FA1F);
    }

    private static boolean isPunctuation(int c) {
        if ((c >= 33 && c <= 47) || (c >= 58 && c <= 64) || (c >= 91 && c <= 96) || (c >= 123 && c <= 126)) {
            return true;
        }
        int type = Character.getType(c);
        return type >= Character.DASH_PUNCTUATION && type <= Character.OTHER_PUNCTUATION
                || type == Character.INITIAL_QUOTE_PUNCTUATION || type == Character.FINAL_QUOTE_PUNCTUATION;
    }

    private static void flush(StringBuilder word, List<String> tokens) {
        if (word.length() > 0) {
            tokens.add(word.toString());
            word.setLength(0);
        }
    }

    /** Greedy longest-match-first word pieces; a word with a piece not in the vocabulary becomes one [UNK]. */
    private void wordPieces(String word, List<Long> ids) {
        int[] cps = word.codePoints().toArray();
        if (cps.length > MAX_WORD_CHARS) {
            ids.add((long) unk);
            return;
        }
        List<Long> pieces = new ArrayList<>();
        int start = 0;
        while (start < cps.length) {
            int end = cps.length;
            Integer found = null;
            while (start < end) {
                String piece = (start > 0 ? "##" : "") + new String(cps, start, end - start);
                found = vocab.get(piece);
                if (found != null) {
                    break;
                }
                end--;
            }
            if (found == null) {
                ids.add((long) unk);
                return;
            }
            pieces.add((long) found);
            start = end;
        }
        ids.addAll(pieces);
    }
}
