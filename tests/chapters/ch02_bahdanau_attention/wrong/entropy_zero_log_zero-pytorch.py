# %% entropy
def predicted_entropy(n_real, S, delta):
    """The entropy -sum_i a_i log a_i (in nats) of masked_softmax's weights for one row of S positions
    whose first n_real are real tokens (the rest padding), position 0 scoring delta and the other
    real positions 0. A number: a formula in n_real, S and delta.
    """
    z = math.exp(delta) + n_real - 1                    # the softmax's denominator: padding adds nothing
    return math.log(z) - delta * math.exp(delta) / z    # -sum a log a, with log a = score - log z


def measured_entropy(masked_softmax, n_real, S, delta):
    """The same entropy, measured with the masked_softmax given: scores (1, S) with delta at position 0,
    0 at the other real positions and anything at the padding, a mask (1, S) true on the first n_real
    positions, then -sum a log a over the row, 0 log 0 counted as 0. A number.
    """
    scores = torch.full((1, S), 100.0)                  # padding: any score, a large one included
    scores[0, :n_real] = 0.0
    scores[0, 0] = delta
    mask = torch.arange(S).unsqueeze(0) < n_real        # (1, S): the first n_real are real
    weights = masked_softmax(scores, mask).double()     # (1, S), exactly 0 on the padding
    terms = weights * weights.log()                     # 0 * log 0 on the padding
    return -terms.sum().item()
