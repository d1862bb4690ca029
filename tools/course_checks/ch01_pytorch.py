"""Chapter 01 (the RNN bottleneck), PyTorch: the checks of the hidden tests. Each takes the student's
function and one case of ch01's tables, asserts, and returns what the cell observes."""
import torch
from torch import nn

from attention_course.data import BOS_ID, PAD_ID

from . import ch01, reference
from .ch01 import (DECODER_STEP_CASES, ENCODER_MEASUREMENT_CASES,  # noqa: F401
                   ENCODER_PARAMETER_CASES, ENCODER_SUMMARY_CASES, GREEDY_CASES, GRU_STEP_CASES,
                   TEACHER_FORCING_CASES)


# ---------------------------------------------------------------- gru_step
def library_gru_refused():
    """While inside: nn.GRUCell, nn.GRU and torch's gru_cell raise the student's failure message."""
    targets = [(nn.GRUCell, "forward"), (nn.GRU, "forward"), (torch, "gru_cell"), (torch._VF, "gru_cell")]
    return reference.refused(targets,
                             "gru_step called the library GRU (nn.GRUCell, nn.GRU or torch.gru_cell): "
                             "compute the gates from the formulas yourself")


def cho_gru_step(x, h, weight_ih, weight_hh, bias_ih, bias_hh):
    """The reference: Cho et al.'s GRU step in nn.GRUCell's layout (gates r, z, n), the reset gate
    applied to h before W_hn, b_hn added after it. tests/chapters/ch01_rnn_bottleneck checks it
    against keras.layers.GRUCell(reset_after=False)."""
    width = h.shape[-1]
    from_input = nn.functional.linear(x, weight_ih, bias_ih)                       # (B, 3H)
    gates = torch.sigmoid(from_input[:, :2 * width]
                          + nn.functional.linear(h, weight_hh[:2 * width], bias_hh[:2 * width]))
    reset, update = gates[:, :width], gates[:, width:]
    candidate = torch.tanh(from_input[:, 2 * width:]
                           + nn.functional.linear(reset * h, weight_hh[2 * width:], bias_hh[2 * width:]))
    return update * h + (1 - update) * candidate


def gru_step_against_formulas(gru_step, B, D, H, seed):
    """gru_step against Cho et al.'s formulas (cho_gru_step) with random weights in nn.GRUCell's
    layout, the library GRU refused while it runs. A step that gives nn.GRUCell's values (the reset
    gate after the product, the chapter's form) is told so. Returns (name, new states (B, H))."""
    g = torch.Generator().manual_seed(seed)
    weights = [torch.randn(shape, generator=g) for shape in ((3 * H, D), (3 * H, H), (3 * H,), (3 * H,))]
    x, h = torch.randn(B, D, generator=g), torch.randn(B, H, generator=g)   # (B, D), (B, H)
    library = nn.GRUCell(D, H)
    with torch.no_grad():
        for p, w in zip((library.weight_ih, library.weight_hh, library.bias_ih, library.bias_hh), weights):
            p.copy_(w)
        reset_after = library(x, h)
        expected = cho_gru_step(x, h, *weights)
        with library_gru_refused():
            got = gru_step(x, h, *weights)
    assert isinstance(got, torch.Tensor) and tuple(got.shape) == (B, H), (
        f"with B={B}, D={D}, H={H} expected a tensor of shape (B, H) = {(B, H)}, "
        f"got {tuple(getattr(got, 'shape', ()))}")
    assert (got - reset_after).abs().max().item() >= 1e-5, (
        f"gru_step gives the values of nn.GRUCell (B={B}, D={D}, H={H}), the chapter's form: in Cho et "
        "al.'s GRU the reset gate multiplies h before the recurrent product, W_hn (r * h)")
    err = (got - expected).abs().max().item()
    assert err < 1e-5, (
        f"gru_step differs from Cho et al.'s GRU step with the same weights by up to {err:.3g} "
        f"(B={B}, D={D}, H={H}): check which rows of the stacked weights belong to which gate, and where "
        "the reset gate applies")
    return f"gru_step B={B} D={D} H={H}", got


# ---------------------------------------------------------------- encoder_summary
def summary_of_row(row, embedding, forward_rnn, backward_rnn):
    """[forward final state ; backward final state] (2H,) of one row's real tokens, read left to
    right by forward_rnn and right to left by backward_rnn, without padding."""
    n = int((row != PAD_ID).sum())
    tokens = embedding(row[:n]).unsqueeze(0)              # one unpadded row: (1, n, E)
    _, left_to_right = forward_rnn(tokens)                # (1, 1, H)
    _, right_to_left = backward_rnn(tokens.flip(1))
    return torch.cat([left_to_right[0, 0], right_to_left[0, 0]])


def encoder_summary_against_unpadded_rows(encoder_summary, lengths, S, V, E, H, seed):
    """encoder_summary of right-padded rows (B = len(lengths), S), from two one-direction GRUs with
    different weights, against each row read alone, then with three more padding columns.
    Returns (name, [summary, padded summary])."""
    torch.manual_seed(seed)
    embedding = nn.Embedding(V, E)                         # <pad> gets a non-zero vector: padding would show
    forward_rnn, backward_rnn = [nn.GRU(E, H, batch_first=True) for _ in range(2)]   # other weights
    src = torch.full((len(lengths), S), PAD_ID, dtype=torch.long)
    for i, n in enumerate(lengths):
        src[i, :n] = torch.randint(ch01.FIRST_WORD_ID, V, (n,))
    with torch.no_grad():
        got = encoder_summary(src, embedding, forward_rnn, backward_rnn)
        assert isinstance(got, torch.Tensor) and tuple(got.shape) == (len(lengths), 2 * H), (
            f"expected a tensor of shape (B, 2H) = {(len(lengths), 2 * H)}, "
            f"got {tuple(getattr(got, 'shape', ()))}")
        for i, n in enumerate(lengths):
            expected = summary_of_row(src[i], embedding, forward_rnn, backward_rnn)
            ch01.assert_row_matches_unpadded(i, n, S, (got[i, :H] - expected[:H]).abs().max().item(),
                                             (got[i, H:] - expected[H:]).abs().max().item())
        padded = torch.cat([src, torch.full((len(lengths), 3), PAD_ID)], dim=1)
        got_padded = encoder_summary(padded, embedding, forward_rnn, backward_rnn)
        ch01.assert_padding_changes_nothing((got_padded - got).abs().max().item())
        return f"encoder_summary lengths={lengths} S={S}", [got, got_padded]


# ---------------------------------------------------------------- decoder_step, teacher forcing
def reference_decoder_step(prev_tokens, context, state, embedding, cell, out):
    """The decoder step of the chapter: the GRU cell on [embedding(prev_tokens) ; context]."""
    state = cell(torch.cat([embedding(prev_tokens), context], dim=-1), state)
    return out(state), state


def decoder_step_against_reference(decoder_step, B, V, E, C, H, seed):
    """decoder_step against reference_decoder_step with the same layers.
    Returns (name, [logits (B, V), new state (B, H)])."""
    torch.manual_seed(seed)
    embedding, cell, out = nn.Embedding(V, E), nn.GRUCell(E + C, H), nn.Linear(H, V)
    prev = torch.randint(0, V, (B,))
    context, state = torch.randn(B, C), torch.randn(B, H)
    with torch.no_grad():
        logits, new_state = decoder_step(prev, context, state, embedding, cell, out)
        ref_logits, ref_state = reference_decoder_step(prev, context, state, embedding, cell, out)
    assert tuple(logits.shape) == (B, V) and tuple(new_state.shape) == (B, H), (
        f"with B={B}, V={V}, H={H} expected shapes {(B, V)} and {(B, H)}, "
        f"got {tuple(logits.shape)} and {tuple(new_state.shape)}")
    ch01.assert_new_state_matches((new_state - ref_state).abs().max().item())
    ch01.assert_logits_match((logits - ref_logits).abs().max().item())
    return f"decoder_step B={B} V={V} H={H}", [logits, new_state]


def teacher_forcing_against_reference(namespace, B, T, V, E, C, H, seed):
    """The kernel's teacher_forced_logits with reference_decoder_step swapped in for its decoder_step
    (`namespace`: the kernel's globals, restored after), on gold tokens and on gold tokens changed
    from step T // 2 on. Returns (name, [logits (B, T, V), changed run's logits up to T // 2])."""
    torch.manual_seed(seed)
    embedding, cell, out = nn.Embedding(V, E), nn.GRUCell(E + C, H), nn.Linear(H, V)
    context, state = torch.randn(B, C), torch.randn(B, H)
    tgt_in = torch.randint(ch01.FIRST_WORD_ID, V, (B, T))
    tgt_in[:, 0] = BOS_ID
    expected, s = [], state
    with torch.no_grad():
        for t in range(T):
            step_logits, s = reference_decoder_step(tgt_in[:, t], context, s, embedding, cell, out)
            expected.append(step_logits)
    expected = torch.stack(expected, dim=1)               # (B, T, V)
    students_step = namespace["decoder_step"]
    namespace["decoder_step"] = reference_decoder_step
    try:
        teacher_forced_logits = ch01.defined_in(namespace, "teacher_forced_logits")
        with torch.no_grad():
            got = teacher_forced_logits(tgt_in, context, state, embedding, cell, out)
            changed = tgt_in.clone()
            changed[:, T // 2:] = ch01.other_gold_tokens(changed[:, T // 2:], V)   # from T//2 on
            got_changed = teacher_forced_logits(changed, context, state, embedding, cell, out)
    finally:
        namespace["decoder_step"] = students_step
    assert tuple(got.shape) == (B, T, V), f"expected (B, T, V) = {(B, T, V)}, got {tuple(got.shape)}"
    ch01.assert_earlier_steps_unchanged((got_changed[:, :T // 2] - got[:, :T // 2]).abs().max().item(), T)
    ch01.assert_gold_token_read((got_changed[:, T // 2] - got[:, T // 2]).abs().max().item(), T)
    ch01.assert_matches_stepping((got - expected).abs().max().item())
    return f"teacher_forced_logits B={B} T={T}", [got, got_changed[:, :T // 2 + 1]]


# ---------------------------------------------------------------- greedy_decode
class ScriptedStep:
    """A stand-in for a trained decoder step: at its k-th call it "predicts" script[:, k] for
    every row, whatever it is fed. It records what it is fed, and its state counts the calls,
    so it can tell whether the state is passed along."""

    def __init__(self, script, vocab_size=12):
        self.script = torch.as_tensor(script)                 # (B, L) token predicted at each call
        self.vocab_size, self.calls, self.fed = vocab_size, 0, []

    def __call__(self, prev_tokens, state):
        assert int(state.reshape(-1)[0]) == self.calls, ch01.STATE_NOT_PASSED
        self.fed.append(torch.as_tensor(prev_tokens).reshape(-1).clone())
        tokens = self.script[:, min(self.calls, self.script.shape[1] - 1)]
        self.calls += 1
        logits = torch.full((len(tokens), self.vocab_size), -5.0)
        logits[torch.arange(len(tokens)), tokens] = 5.0
        return logits, state + 1


def greedy_decode_against_script(greedy_decode, script, max_len, expected_calls):
    """greedy_decode of a ScriptedStep from a (B, 2) zero state: the ids, what each step was fed,
    how often it was called. Returns (name, [ids, first tokens fed, tokens fed later, calls])."""
    step = ScriptedStep(script)
    got = greedy_decode(step, torch.zeros(len(script), 2), max_len)
    assert isinstance(got, torch.Tensor) and tuple(got.shape) == (len(script), max_len), (
        f"expected a tensor of shape (B, max_len) = {(len(script), max_len)}, "
        f"got {tuple(getattr(got, 'shape', ()))}")
    return ch01.greedy_run_against_script(got.tolist(), step, script, max_len, expected_calls)


# ---------------------------------------------------------------- part 5: the encoder's parameters
def library_layers_refused():
    """While inside: building a library embedding or recurrent layer raises the student's failure
    message (a prediction is a formula, not a count of layers built on the spot)."""
    targets = [(nn.Embedding, "__init__"), (nn.RNNBase, "__init__"), (nn.GRU, "__init__"),
               (nn.RNNCellBase, "__init__")]
    return reference.refused(targets, ch01.PREDICTION_BUILT_LAYERS)


def encoder_parameters_prediction(predicted_encoder_parameters, V, E, H, num_layers):
    """predicted_encoder_parameters at a case of ENCODER_PARAMETER_CASES, with library layers
    refused while it runs; the observation."""
    with library_layers_refused():
        return ch01.encoder_parameters_prediction(predicted_encoder_parameters, V, E, H, num_layers)


def encoder_parameters_measurement(measured_encoder_parameters, V, E, H, num_layers, biases, B, S,
                                   seed):
    """measured_encoder_parameters(embedding, rnn, src) on an nn.Embedding(V, E) and an nn.GRU(E, H,
    num_layers, bidirectional, bias=biases) against the numbers they hold, for a case of
    ENCODER_MEASUREMENT_CASES. Returns (name, the measured count)."""
    torch.manual_seed(seed)
    embedding = nn.Embedding(V, E)
    rnn = nn.GRU(E, H, num_layers=num_layers, bias=biases, batch_first=True, bidirectional=True)
    src = torch.randint(ch01.FIRST_WORD_ID, V, (B, S))
    what = (f"measured_encoder_parameters on nn.Embedding({V}, {E}) and nn.GRU({E}, {H}, "
            f"num_layers={num_layers}, bias={biases}, bidirectional=True)")
    measured = ch01.one_number(reference.quietly(measured_encoder_parameters, embedding, rnn, src),
                               what)
    held = sum(p.numel() for layer in (embedding, rnn) for p in layer.parameters())
    ch01.assert_measured(what, measured, held,
                         "count every number in every parameter of the two layers you are given "
                         "(do not apply a formula: this GRU may differ from the chapter's)")
    return what, measured
