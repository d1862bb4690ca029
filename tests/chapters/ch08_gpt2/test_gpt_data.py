"""Chapter 8's data: the character vocabulary, the training windows, and GPT-2's byte-level
BPE read from openai-whisper's gpt2.tiktoken, checked against transformers' tokenizer."""
import json

import numpy as np
import pytest

from attention_course import gpt_data


@pytest.fixture(scope="module")
def ranks():
    return gpt_data.gpt2_ranks()


def test_char_vocabulary_round_trip():
    text = "To be, or not to be:\nthat is the question."
    chars = gpt_data.CharVocabulary(text)
    assert chars.chars == sorted(set(text))
    ids = chars.encode(text)
    assert ids.dtype == np.int64 and chars.decode(ids) == text


def test_random_windows_are_shifted_by_one_and_reproducible():
    ids = np.arange(1000)
    inputs, targets = next(gpt_data.random_windows(ids, 8, 16, seed=3))
    assert inputs.shape == targets.shape == (8, 16)
    np.testing.assert_array_equal(targets, inputs + 1)          # ids are positions here
    again, _ = next(gpt_data.random_windows(ids, 8, 16, seed=3))
    np.testing.assert_array_equal(again, inputs)
    starts = [batch[0][:, 0] for batch, _ in zip(gpt_data.random_windows(ids, 64, 16), range(50))]
    assert max(s.max() for s in starts) <= 1000 - 17            # the last window fits


def test_the_plays_as_one_text():
    text = gpt_data.shakespeare_text()
    assert len(text) == 4_423_970 and len(set(text)) == 79
    assert "To be, or not to be" in text


def test_gpt2_vocabulary_has_gpt2s_sizes(ranks):
    assert len(ranks) == 50_256 and sorted(ranks.values()) == list(range(50_256))
    assert all(ranks[bytes([b])] < 256 for b in range(256))     # the 256 bytes come first
    merges = gpt_data.gpt2_merges(ranks)
    assert len(merges) == 50_000
    show = gpt_data.printable_bytes()
    assert show[ord(" ")] == "Ġ" and show[ord("\n")] == "Ċ" and len(set(show.values())) == 256
    assert merges[0] == ("Ġ", "t")                              # GPT-2's first merge


def test_bpe_merges_lowest_rank_first(ranks):
    # " the" is one token; a made-up word falls apart into known pieces, never unknown
    assert gpt_data.gpt2_encode(" the", ranks) == [ranks[b" the"]]
    pieces = gpt_data.gpt2_encode(" zxqvbnm", ranks)
    assert len(pieces) > 1
    inverse = {rank: token for token, rank in ranks.items()}
    assert b"".join(inverse[p] for p in pieces) == b" zxqvbnm"


def test_encoder_equals_transformers_gpt2_tokenizer(ranks, tmp_path):
    from transformers import GPT2TokenizerFast

    show = gpt_data.printable_bytes()
    vocab = {"".join(show[b] for b in token): rank for token, rank in ranks.items()}
    vocab["<|endoftext|>"] = gpt_data.END_OF_TEXT
    (tmp_path / "vocab.json").write_text(json.dumps(vocab))
    (tmp_path / "merges.txt").write_text(
        "#version: 0.2\n" + "\n".join(" ".join(m) for m in gpt_data.gpt2_merges(ranks)) + "\n")
    reference = GPT2TokenizerFast(str(tmp_path / "vocab.json"), str(tmp_path / "merges.txt"))
    text = (gpt_data.shakespeare_text()[200_000:210_000]
            + "\nIt's 2026: naïve café, Ünïcödé, emoji 🎭, 你好,   spaces\t\ttabs\n\n")
    assert gpt_data.gpt2_encode(text, ranks) == reference.encode(text)
