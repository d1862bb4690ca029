# %% beam
def beam_search_one_source(next_log_probs, max_len, beam_size=4, num_beams=1, alpha=0.6):
    """Keep the beam_size most likely prefixes; return the num_beams best finished (or, at max_len,
    unfinished) sequences without BOS_ID, best first, and their scores log-prob / length ** alpha."""
    beams = [([BOS_ID], 0.0, False)]                     # (prefix, sum of log-probs, finished)
    for _ in range(max_len):
        if all(done for _, _, done in beams):
            break
        candidates = []
        for prefix, score, done in beams:
            if done:                                     # carried along unchanged
                candidates.append((prefix, score, True))
                continue
            log_probs = next_log_probs(prefix)
            for token in range(len(log_probs)):
                candidates.append((prefix + [token], score + float(log_probs[token]), token == EOS_ID))
        order = sorted(range(len(candidates)), key=lambda i: -candidates[i][1])   # stable: first found wins
        beams = [candidates[i] for i in order[:beam_size]]
    normalised = [(prefix[1:], score) for prefix, score, _ in beams]
    normalised.sort(key=lambda item: -item[1])
    best = normalised[:num_beams]
    return [tokens for tokens, _ in best], [score for _, score in best]
