package io.ortex.benchmarks.serving;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The requests' inputs: real English sentences turned into BERT WordPiece ids through the model's own
 * {@code tokenizer.json} vocabulary, each exactly {@code length} tokens ({@code [CLS]}, the words, {@code [SEP]}),
 * with an attention mask of ones and token types of zeros. A word missing from the vocabulary as a whole word becomes
 * {@code [UNK]}; the sentences are chosen so that none is. Immutable.
 */
final class TokenRows {
    /** Sentences long enough for 128 tokens when repeated; one row per sentence. */
    private static final String[] SENTENCES = {
        "the model server answers many clients at the same time and each of them waits for its answer before it "
            + "sends the next request so the load is closed",
        "a new version of the model is copied into the folder while the server runs and it takes over without "
            + "dropping a single request from any client",
        "when the execution provider is removed the sessions that hold it finish their work and the model is "
            + "loaded again on the devices that remain",
        "the server puts the requests that wait in the queue together into one run of the model and then "
            + "splits the outputs back for every request",
    };

    private final int length;
    private final List<long[]> ids;

    private TokenRows(int length, List<long[]> ids) {
        this.length = length;
        this.ids = ids;
    }

    /**
     * Tokenizes the sentences with a tokenizer's vocabulary.
     *
     * @param tokenizer the model's {@code tokenizer.json}
     * @param length the tokens per row, at least 3
     * @return the rows
     * @throws IOException when the file cannot be read
     * @throws IllegalArgumentException when the file has no vocabulary or the length is too small
     */
    static TokenRows of(Path tokenizer, int length) throws IOException {
        if (length < 3) {
            throw new IllegalArgumentException("--tokens " + length + ": a row needs at least 3 tokens");
        }
        JsonNode vocab = new ObjectMapper().readTree(tokenizer.toFile()).path("model").path("vocab");
        if (!vocab.isObject() || !vocab.has("[CLS]") || !vocab.has("[SEP]") || !vocab.has("[UNK]")) {
            throw new IllegalArgumentException(tokenizer + ": no WordPiece vocabulary with [CLS], [SEP] and [UNK] "
                    + "under model.vocab");
        }
        List<long[]> rows = new ArrayList<>();
        for (String sentence : SENTENCES) {
            long[] row = new long[length];
            row[0] = vocab.get("[CLS]").asLong();
            String[] words = sentence.toLowerCase(Locale.ROOT).split(" ");
            for (int i = 1; i < length - 1; i++) {
                JsonNode id = vocab.get(words[(i - 1) % words.length]);
                row[i] = id == null ? vocab.get("[UNK]").asLong() : id.asLong();
            }
            row[length - 1] = vocab.get("[SEP]").asLong();
            rows.add(row);
        }
        return new TokenRows(length, List.copyOf(rows));
    }

    /**
     * Gets the tokens per row.
     *
     * @return the length
     */
    int length() {
        return length;
    }

    /**
     * Counts the rows.
     *
     * @return the count
     */
    int count() {
        return ids.size();
    }

    /**
     * Gets one row's token ids.
     *
     * @param row the row
     * @return a copy of its ids
     */
    long[] inputIds(int row) {
        return ids.get(row).clone();
    }
}
