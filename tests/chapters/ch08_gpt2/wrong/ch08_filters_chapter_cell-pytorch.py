# %% filters
def top_k_filter(logits, k):
    """(B, V) -> (B, V): the k largest logits of each row kept, the others -inf."""
    kth_largest = torch.topk(logits, k, dim=-1).values[:, -1:]          # (B, 1)
    return logits.masked_fill(logits < kth_largest, float("-inf"))


def top_p_filter(logits, p):
    """(B, V) -> (B, V): keep the smallest set of most probable tokens whose probability
    reaches p (nucleus sampling, Holtzman et al. 2020); the others -inf."""
    sorted_logits, order = torch.sort(logits, dim=-1, descending=True)
    probs = torch.softmax(sorted_logits, dim=-1)
    mass_before = probs.cumsum(dim=-1) - probs         # of the tokens ranked above each
    drop_sorted = mass_before >= p                     # p reached without this token
    drop = torch.zeros_like(drop_sorted).scatter(-1, order, drop_sorted)
    return logits.masked_fill(drop, float("-inf"))
