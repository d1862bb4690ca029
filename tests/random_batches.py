"""Random right-padded batches shared by the Keras-vs-PyTorch model tests."""
import numpy as np

from attention_course.data import BOS_ID, PAD_ID

SRC_LENGTHS = [5, 2, 1, 4]        # unsorted, one full row, one single token
TGT_LENGTHS = [6, 3, 1, 5]


def right_padded(lengths, width, vocab, rng):
    """Random real ids (never PAD) followed by PAD up to width."""
    ids = rng.integers(PAD_ID + 1, vocab, size=(len(lengths), width))
    ids[np.arange(width) >= np.array(lengths)[:, None]] = PAD_ID
    return ids


def seq2seq_batch(src_vocab, tgt_vocab, seed=0):
    """(src, tgt_in): padded sources and teacher-forcing inputs that start with <bos>."""
    rng = np.random.default_rng(seed)
    src = right_padded(SRC_LENGTHS, max(SRC_LENGTHS), src_vocab, rng)
    tgt_in = right_padded(TGT_LENGTHS, max(TGT_LENGTHS), tgt_vocab, rng)
    tgt_in[:, 0] = BOS_ID
    return src, tgt_in
