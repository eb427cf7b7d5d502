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

    private WordPieceTokenizer(Map<String, Integer> vocab) {
        this.vocab = vocab;
        this.unk = id("[UNK]");
        this.cls = id("[CLS]");
        this.sep = id("[SEP]");
    }

    private int id(String token) {
        Integer id = vocab.get(token);
        if (id == null) {
            throw new IllegalArgumentException("tokenizer vocabulary has no " + token);
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

    private static List<String> basicTokens(String text) {
        String norm = Normalizer.normalize(text.toLowerCase(java.util.Locale.ROOT), Normalizer.Form.NFD)
                .replaceAll("\\p{Mn}", "");
        List<String> tokens = new ArrayList<>();
        StringBuilder word = new StringBuilder();
        for (int i = 0; i < norm.length(); i++) {
            char c = norm.charAt(i);
            if (Character.isWhitespace(c) || Character.isISOControl(c)) {
                flush(word, tokens);
            } else if (isPunctuation(c)) {
                flush(word, tokens);
                tokens.add(String.valueOf(c));
            } else {
                word.append(c);
            }
        }
        flush(word, tokens);
        return tokens;
    }

    private static boolean isPunctuation(char c) {
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

    private void wordPieces(String word, List<Long> ids) {
        if (word.length() > MAX_WORD_CHARS) {
            ids.add((long) unk);
            return;
        }
        List<Long> pieces = new ArrayList<>();
        int start = 0;
        while (start < word.length()) {
            int end = word.length();
            Integer found = null;
            while (start < end) {
                String piece = (start > 0 ? "##" : "") + word.substring(start, end);
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
