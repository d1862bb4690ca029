"""Chapter 7's data: BERT's masking for masked language modelling, BERT inputs, the plays.

The masking statistics are checked over many draws with tolerances of five binomial
standard deviations (the draws are seeded, so the test is deterministic).
"""
import numpy as np
import pytest

from attention_course import bert_data, pretrained, shakespeare

SPECIAL = [0, 1, 2, 3, 4]
MASK_ID, VOCAB = 4, 50


def _masked(rate=0.15, rows=20_000, seed=0):
    rng = np.random.default_rng(seed)
    tokens = rng.integers(5, VOCAB, size=(rows, 20))
    tokens[:, 0], tokens[:, -3] = 2, 3                      # [CLS] ... [SEP]
    tokens[:, -2:] = 0                                      # padding
    inputs, labels = bert_data.mask_tokens(tokens, VOCAB, MASK_ID, SPECIAL, rng, rate)
    return tokens, inputs, labels


def _close(share, p, n):
    return abs(share - p) < 5 * np.sqrt(p * (1 - p) / n)


@pytest.mark.parametrize("rate", [0.15, 0.3])
def test_masking_follows_the_80_10_10_rule(rate):
    tokens, inputs, labels = _masked(rate)
    chosen = labels != bert_data.IGNORE_INDEX
    ordinary = ~np.isin(tokens, SPECIAL)
    assert not chosen[~ordinary].any()                      # specials and padding never
    assert _close(chosen[ordinary].mean(), rate, ordinary.sum())
    n = chosen.sum()
    to_mask = inputs[chosen] == MASK_ID
    unchanged = inputs[chosen] == tokens[chosen]
    random = ~to_mask & ~unchanged
    assert _close(to_mask.mean(), 0.8, n)
    # a random replacement equals the original with probability 1/45 here
    assert _close(random.mean(), 0.1 * (1 - 1 / 45), n)
    assert _close(unchanged.mean(), 0.1 + 0.1 / 45, n)
    np.testing.assert_array_equal(labels[chosen], tokens[chosen])
    np.testing.assert_array_equal(inputs[~chosen], tokens[~chosen])


def test_random_replacements_are_ordinary_and_spread():
    tokens, inputs, labels = _masked()
    replaced = (labels != bert_data.IGNORE_INDEX) & (inputs != MASK_ID) & (inputs != tokens)
    drawn = inputs[replaced]
    assert not np.isin(drawn, SPECIAL).any()
    assert len(np.unique(drawn)) == VOCAB - len(SPECIAL)      # every ordinary id appears


def test_masking_leaves_its_input_alone():
    rng = np.random.default_rng(1)
    tokens = rng.integers(5, VOCAB, size=(8, 10))
    before = tokens.copy()
    bert_data.mask_tokens(tokens, VOCAB, MASK_ID, SPECIAL, rng, 0.5)
    np.testing.assert_array_equal(tokens, before)


def test_encode_texts_cuts_and_pads():
    tokenizer = pretrained.minilm().tokenizer
    ids, segments = bert_data.encode_texts(
        tokenizer, ["a short one", ("first sentence here", "and a second, much longer one")], 8)
    cls, sep = tokenizer.token_to_id("[CLS]"), tokenizer.token_to_id("[SEP]")
    assert ids.shape == segments.shape == (2, 8)
    assert ids[0, 0] == cls and list(ids[0]).count(sep) == 1 and ids[0, -1] == bert_data.PAD_ID
    assert ids[1, 0] == cls and ids[1, -1] == sep           # cut, ending with [SEP]
    assert segments[1, -1] == 1 and segments[0].max() == 0


def test_plays_are_spoken_lines_only():
    plays = shakespeare.all_lines()
    assert len(plays) == 38
    lines = [line for lines in plays.values() for line in lines]
    assert len(lines) > 100_000
    assert not any(line.startswith(("#", "_", "*", "**")) for line in lines)
    assert "Who's there?" == plays["hamlet"][0]


def test_mlm_windows_hold_out_the_end_of_every_play():
    plays = {"a": ["one two three four five six seven eight nine ten"] * 20,
             "b": ["eleven twelve thirteen"] * 20}
    tokenizer = bert_data.train_wordpiece([line for lines in plays.values() for line in lines],
                                          vocab_size=60)
    train, valid = bert_data.mlm_windows(tokenizer, plays, length=8, valid_fraction=0.25)
    cls, sep = tokenizer.token_to_id("[CLS]"), tokenizer.token_to_id("[SEP]")
    assert train.shape[1] == valid.shape[1] == 8
    assert (train[:, 0] == cls).all() and (train[:, -1] == sep).all()
    assert len(valid) > 0 and len(train) > 2 * len(valid)
