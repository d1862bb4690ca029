"""Chapter 6's checks that both frameworks share (NumPy only): the graded stretch of a visible
test cell, the reference decoder masks in NumPy (part 3's, and part 2's for packed batches), the
packed and padded token batches of the mask test and its verdict,
every check of beam search (part 4 is plain Python in both notebooks), and the calls of part 3's
caching decoder layer, which work on arrays and tensors alike."""
import itertools
import warnings

import numpy as np

from attention_course.data import BOS_ID, EOS_ID, PAD_ID


class UntilEndOfCell:
    """What the hidden region at the top of a visible test cell sets up and the hidden region at
    its end undoes (`end`): warnings ignored (a warning is no failure) and, where given, names of
    the kernel's namespace lent references."""

    def __init__(self, namespace, lent):
        self.namespace = namespace
        self.lent = lent                             # name -> the reference put in its place
        self.yours = {}                              # name -> what the kernel had (None: nothing)
        self.quiet = warnings.catch_warnings()

    def start(self):
        """Keep the kernel's own names, lend the references, then ignore warnings."""
        for name, reference in self.lent.items():
            self.yours[name] = self.namespace.get(name)
            self.namespace[name] = reference
        self.quiet.__enter__()
        warnings.simplefilter("ignore")
        return self

    def end(self):
        """Stop ignoring warnings, then give the kernel back its own names."""
        self.quiet.__exit__(None, None, None)
        for name, yours in self.yours.items():
            self.namespace[name] = yours


def until_end_of_cell(namespace=None, **lent):
    """Ignore warnings, and put each reference of `lent` in `namespace` (the kernel's globals())
    under its name, until the hidden region at the end of the cell calls `.end()` on the result."""
    return UntilEndOfCell(namespace, lent).start()


def reference_decoder_masks(target_ids, source_ids):
    """The masks of part 3's tests in NumPy (lent as decoder_masks there: part 2 is graded alone),
    one example per row: (B, T), (B, S) ids -> self-attention mask (B, T, T), causal and no
    padding; cross-attention mask (B, 1, S), no padding; True = allowed."""
    target_ids, source_ids = np.asarray(target_ids), np.asarray(source_ids)
    steps = target_ids.shape[1]
    lower = np.tril(np.ones((steps, steps))).astype(bool)
    return lower[None] & (target_ids != PAD_ID)[:, None, :], (source_ids != PAD_ID)[:, None, :]


def reference_packed_masks(target_ids, source_ids, target_segments, source_segments):
    """Part 2's reference decoder_masks for a packed batch, in NumPy: (B, T), (B, S) ids and the
    example each token belongs to -> self-attention mask (B, T, T), causal, no padding and within
    the example; cross-attention mask (B, T, S), no padding and to the same example's source;
    True = allowed."""
    target_ids, source_ids = np.asarray(target_ids), np.asarray(source_ids)
    target_segments, source_segments = np.asarray(target_segments), np.asarray(source_segments)
    steps = target_ids.shape[1]
    lower = np.tril(np.ones((steps, steps))).astype(bool)
    within = target_segments[:, :, None] == target_segments[:, None, :]          # (B, T, T)
    paired = target_segments[:, :, None] == source_segments[:, None, :]          # (B, T, S)
    return (lower[None] & within & (target_ids != PAD_ID)[:, None, :],
            paired & (source_ids != PAD_ID)[:, None, :])


MASK_SEED = 51
MASK_SHAPES = ((3, 1, 4), (2, 6, 1), (4, 9, 7), (1, 30, 44))   # (B, T, S): T = 1, S = 1, long rows


def packed_segments(rng, examples, length):
    """Segment ids (length,) of `examples` examples packed one after the other, each at least one
    token long where the length allows: 0, 0, 1, 1, 1, 2, ..."""
    cuts = np.sort(rng.choice(np.arange(1, length), size=min(examples, length) - 1, replace=False))
    return np.searchsorted(cuts, np.arange(length), side="right")


def padded_token_batches():
    """The mask test's inputs, one generator for all shapes of MASK_SHAPES, in order: tuples
    (B, T, S, target ids (B, T), source ids (B, S), target segments (B, T), source segments
    (B, S)): each row packs 1 to 3 examples (as many in the target as in the source, where the
    lengths allow) and is padded from a random point on (a row may be padding only)."""
    rng = np.random.default_rng(MASK_SEED)
    batches = []
    for batch, steps, source_steps in MASK_SHAPES:
        target_ids = rng.integers(3, 9, size=(batch, steps))
        source_ids = rng.integers(3, 9, size=(batch, source_steps))
        target_segments = np.zeros((batch, steps), dtype=np.int64)
        source_segments = np.zeros((batch, source_steps), dtype=np.int64)
        for row in range(batch):                     # packed examples, then random padding at the end
            examples = min(int(rng.integers(1, 4)), steps, source_steps)
            target_segments[row] = packed_segments(rng, examples, steps)
            source_segments[row] = packed_segments(rng, examples, source_steps)
            target_ids[row, rng.integers(0, steps + 1):] = PAD_ID
            source_ids[row, rng.integers(0, source_steps + 1):] = PAD_ID
        batches.append((batch, steps, source_steps, target_ids, source_ids, target_segments,
                        source_segments))
    return tuple(batches)


def masks_with_and_without_segments(decoder_masks, as_given, to_numpy, B, T, S, tgt, src,
                                    tgt_segments, src_segments):
    """Part 2's check on one batch of padded_token_batches (NumPy): decoder_masks without segments
    (one example per row) and with them (a packed batch), its inputs through `as_given` (the
    framework's kind) and its masks through `to_numpy`, against the definition
    (reference_packed_masks). Returns two observations (name, value)."""
    found = []
    for packed in (False, True):
        segments = (tgt_segments, src_segments) if packed else (np.zeros_like(tgt), np.zeros_like(src))
        want = reference_packed_masks(tgt, src, *segments)
        if packed:
            got = decoder_masks(as_given(tgt), as_given(src), tgt_segments=as_given(tgt_segments),
                                src_segments=as_given(src_segments))
        else:
            got = decoder_masks(as_given(tgt), as_given(src))
        found.append(masks_verdict([to_numpy(mask) for mask in got], want, B, T, S, packed))
    return found


def masks_verdict(got, want, B, T, S, packed):
    """Part 2's check, given the masks returned (NumPy) and the reference's: the assertions, and the
    observation (name, the masks)."""
    (got_self, got_cross), (want_self, want_cross) = got, want
    case = f"B={B}, T={T}, S={S}, " + ("a packed batch" if packed else "no segments given")
    assert got_self.shape == (B, T, T) and np.array_equal(got_self, want_self), (
        f"with {case}: the self-attention mask should be (B, T, T), True where u <= t, tgt_in[b, u] is "
        "not PAD_ID and u belongs to the same example as t")
    assert got_cross.shape == (B, T, S) and np.array_equal(got_cross, want_cross), (
        f"with {case}: the cross-attention mask should be (B, T, S), True where src[b, s] is not "
        "PAD_ID and s belongs to the same example as t")
    return f"masks {case}", (got_self, got_cross)


def random_model(seed, vocab):
    """A random but fixed "model": prefix (list of ids) -> log-probabilities (vocab,) of the next."""
    def model(prefix):
        draw = np.random.default_rng([seed] + [int(t) for t in prefix])
        logits = draw.normal(size=vocab) * 2.0
        return logits - np.log(np.exp(logits).sum())
    return model


def sequence_value(model, tokens, power):
    """The log-probability of `tokens` after BOS_ID, divided by its length ** power."""
    total, seen = 0.0, [BOS_ID]
    for token in tokens:
        total += float(model(seen)[token])
        seen = seen + [token]
    return total / len(tokens) ** power


def every_sequence(vocab, longest):
    """Every sequence of ids below `vocab`: it ends at its first EOS_ID, or at length `longest`."""
    found = []
    for size in range(1, longest + 1):
        for tokens in itertools.product(range(vocab), repeat=size):
            if EOS_ID in tokens[:-1]:
                continue
            if tokens[-1] == EOS_ID or size == longest:
                found.append(list(tokens))
    return found


EXHAUSTIVE_CASES = (               # (seed, vocabulary, max_len, alpha)
    (81, 4, 3, 0.6),
    (82, 5, 3, 0.0),
    (83, 5, 3, 1.0),
    (84, 4, 2, 0.6),
)


def beam_against_exhaustive(beam_search, seed, vocab, longest, power):
    """With a beam that keeps every prefix, beam_search finds the three best sequences of an
    exhaustive search, with their scores. Returns two observations (name, value)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")   # a warning is no failure
        model = random_model(seed, vocab)
        ranked = sorted(every_sequence(vocab, longest), key=lambda t: -sequence_value(model, t, power))[:3]
        got, got_scores = beam_search(model, longest, beam_size=vocab ** longest + 1, num_beams=3,
                                      alpha=power)
        got = [[int(t) for t in sequence] for sequence in got]
        assert got == ranked, (
            f"vocabulary {vocab}, max_len {longest}, alpha {power}: with a beam that keeps every prefix, "
            f"the three best sequences should be {ranked} (exhaustive search), got {got}: check that "
            "finished beams are kept, that a sequence stops at EOS_ID, and the ranking by "
            "log-probability / length ** alpha")
        want_scores = [sequence_value(model, t, power) for t in ranked]
        assert np.allclose(got_scores, want_scores, atol=1e-6), (
            f"the scores should be log-probability / length ** alpha: expected {np.round(want_scores, 4)}, "
            f"got {np.round(got_scores, 4)}")
        return [(f"exhaustive seed={seed}", got),
                (f"exhaustive scores seed={seed}", np.round(got_scores, 6))]


GREEDY_SEEDS = (91, 92, 93)        # random models over a vocabulary of 6


def beam_greedy_and_ranked(beam_search, seed):
    """beam_size=1 is greedy decoding (up to 8 tokens); with beam_size=5 the three returned beams
    come best first, each scored log-probability / length ** 0.6. Returns two observations."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")   # a warning is no failure
        model = random_model(seed, 6)
        greedy, seen = [], [BOS_ID]
        for _ in range(8):
            following = int(np.argmax(model(seen)))
            greedy.append(following)
            seen = seen + [following]
            if following == EOS_ID:
                break
        got, _ = beam_search(model, 8, beam_size=1)
        assert [int(t) for t in got[0]] == greedy, (
            f"with beam_size=1, beam search should be greedy: {greedy}, got {got[0]}")
        beams, scores = beam_search(model, 6, beam_size=5, num_beams=3, alpha=0.6)
        assert len(beams) == 3 and list(scores) == sorted(scores, reverse=True), (
            "beam_search should return num_beams sequences, best (highest normalised score) first")
        for sequence, score in zip(beams, scores):
            assert abs(sequence_value(model, [int(t) for t in sequence], 0.6) - score) < 1e-6, (
                f"the score of {sequence} should be its log-probability divided by its length ** alpha")
        return [(f"greedy seed={seed}", got[0]),
                (f"beams seed={seed}", (beams, np.round(scores, 6)))]


# The encoder layer's three layouts that part 1 asks for, as (norm_first, parallel): post-LN (the
# paper), pre-LN, and the parallel block of GPT-J, GPT-NeoX and PaLM (pre-LN, both sublayers read the
# same input and their outputs are added to it).
LAYOUTS = ((False, False), (True, False), (True, True))


def layout_name(norm_first, parallel):
    """How the feedback names a layout: its arguments."""
    return f"norm_first={norm_first}, parallel={parallel}"


def dropout_observations(EncoderLayer, modes, placement, branch_masks):
    """The dropout test's observations, warnings silenced (a warning is no failure): `modes` and
    `placement` (one framework's checks of one layout) in every layout, then `branch_masks`."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return [*(modes(EncoderLayer, *layout) for layout in LAYOUTS),
                *(placement(EncoderLayer, *layout) for layout in LAYOUTS),
                branch_masks(EncoderLayer)]


def padding_verdict(gap, norm_first, parallel):
    """The encoder's padding check, given how much changing the padded positions moved the real
    outputs: the assertion and the observation (name, verdict)."""
    assert gap < 1e-5, (
        f"with {layout_name(norm_first, parallel)}, changing padded positions changed real outputs "
        f"by up to {gap:.3g}: pass the attention_mask to the self-attention")
    return f"padding does not leak, {layout_name(norm_first, parallel)}", bool(gap < 1e-5)


# The parts of EncoderLayer whose weights the dropout-placement check draws, in this order (the
# assignment names them), so that the draw does not depend on the order a student created them in.
ENCODER_PARTS = ("self_attention", "attention_norm", "feed_forward", "feed_forward_norm")


def placement_verdict(gap_to_input, gap_to_norms, norm_first, parallel):
    """The dropout-placement check, given how far the layer's output is (with dropout=1.0, in
    training) from its input and from feed_forward_norm(attention_norm(x)). Post-LN must give
    the latter; pre-LN and the parallel block the input (pre-LN: or the latter where the layer
    ignores norm_first, a norm placement error, which the library test grades, not this one)."""
    where = ("x + Dropout(MHA(LN(x))) + Dropout(FFN(LN(x)))" if parallel
             else "x + Dropout(sublayer(LN(x)))" if norm_first else "LN(x + Dropout(sublayer(x)))")
    expected = "x itself" if norm_first else "feed_forward_norm(attention_norm(x))"
    gap = (gap_to_input if parallel else min(gap_to_input, gap_to_norms) if norm_first
           else gap_to_norms)
    assert gap < 1e-4, (
        f"with {layout_name(norm_first, parallel)} and dropout=1.0 (every dropped value zero), "
        f"training should give {expected}: dropout belongs on each sublayer's output, before the "
        f"residual sum, {where}; yours is off by {gap:.3g}")


def placement_observation(out, norm_first, parallel):
    """What the grader compares outside the kernel: the post-LN output itself (it must equal the
    reference's); for pre-LN and the parallel block only that the check passed, since a layer that
    ignores norm_first legitimately gives another output here."""
    if norm_first:
        return f"dropout on the sublayers' outputs, {layout_name(norm_first, parallel)}", True
    return "dropout=1.0 output, norm_first=False", out


def branch_masks_verdict(change, attention, feed_forward):
    """The parallel block's dropout at 0.5 (the feed-forward network's inner dropout off), in
    training: `change` = output - input, `attention` and `feed_forward` the two branches' outputs
    without dropout, all (B, S, d_model) NumPy. Each branch has a dropout of its own, so every
    entry of the change is 0, 2 a, 2 f or 2 (a + f); one dropout on the sum of the branches (one
    mask for both) never gives 2 a or 2 f alone. Returns the observation (name, verdict)."""
    kept = np.stack([np.zeros_like(change), 2 * attention, 2 * feed_forward,
                     2 * (attention + feed_forward)])            # (4, B, S, d_model)
    gaps = np.abs(change[None] - kept)
    off = gaps.min(axis=0).max()
    assert off < 1e-4, (
        "with parallel=True and dropout=0.5, in training every entry of y - x should be 0, 2 a, 2 f "
        "or 2 (a + f), where a and f are the attention's and the feed-forward network's outputs: "
        "dropout belongs on each branch's output, before the residual sum, x + Dropout(MHA(LN(x))) "
        f"+ Dropout(FFN(LN(x))); yours is off by up to {off:.3g}")
    nearest = gaps.argmin(axis=0)
    alone = float(np.isin(nearest, (1, 2)).mean())
    assert alone > 0.1, (
        "with parallel=True and dropout=0.5, in training each branch should have its own dropout "
        "mask (x + Dropout(MHA(LN(x))) + Dropout(FFN(LN(x)))): yours keeps or drops both branches "
        "together, one dropout on their sum")
    return "each branch its own dropout, parallel=True", True


def four_results(returned, call):
    """What a caching layer's call returned, checked to be (y, self_weights, cross_weights,
    memory_cache)."""
    assert isinstance(returned, (tuple, list)) and len(returned) == 4, (
        f"{call} should return four things, (y, self_weights, cross_weights, memory_cache), got "
        f"{type(returned).__name__} of {len(returned) if isinstance(returned, (tuple, list)) else 1}")
    return returned


def through_cache(layer, y, memory, self_mask, cross_mask):
    """The caching layer's results on the whole target y (B, T, d_model) when the keys and values
    of memory come from its cache: a first step (the target's first position) fills the cache,
    then the call that counts gets memory=None and memory_cache."""
    first = four_results(layer(y[:, :1], memory, self_mask[:, :1, :1], cross_mask),
                         "layer(y, memory, self_attention_mask, cross_attention_mask)")
    return four_results(layer(y, None, self_mask, cross_mask, memory_cache=first[3]),
                        "layer(y, None, ..., memory_cache=cache)")
