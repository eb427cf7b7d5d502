package io.ortex.benchmarks.serving;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ortex.testing.RealModels;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The requests' token ids come from all-MiniLM-L6-v2's own vocabulary, every row exactly as long as asked. */
class TokenRowsTest {
    @Test
    void rowsAreClsWordsSepOfTheRequestedLengthWithoutUnknownWords() throws Exception {
        TokenRows rows = TokenRows.of(RealModels.file("all-minilm-l6-v2/tokenizer.json"), 32);
        assertEquals(32, rows.length());
        assertTrue(rows.count() >= 4);
        for (int r = 0; r < rows.count(); r++) {
            long[] ids = rows.inputIds(r);
            assertEquals(32, ids.length);
            assertEquals(101, ids[0], "[CLS]");
            assertEquals(102, ids[31], "[SEP]");
            for (int i = 1; i < 31; i++) {
                assertTrue(ids[i] > 999, "row " + r + " token " + i + " is a word, not [UNK] or [unusedN]: " + ids[i]);
            }
        }
        assertEquals(102, TokenRows.of(RealModels.file("all-minilm-l6-v2/tokenizer.json"), 128).inputIds(0)[127],
                "a row of 128 tokens ends with [SEP] too");
    }

    @Test
    void aFileWithoutAVocabularyIsNamed(@TempDir Path dir) throws Exception {
        Path file = Files.writeString(dir.resolve("tokenizer.json"), "{\"model\": {\"type\": \"BPE\"}}");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> TokenRows.of(file, 32));
        assertTrue(e.getMessage().startsWith(file + ": no WordPiece vocabulary"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> TokenRows.of(file, 2));
    }
}
