"""transformers' GPT-2 with random weights, saved so that the Keras notebook needs no PyTorch.

Chapter 8 checks its GPT-2s against transformers' `GPT2LMHeadModel`: no GPT-2 weights
install offline, so the reference is that model with random weights (seed 0), in GPT-2's
layout but small (`SMALL`). It is a PyTorch module, and the chapter's Keras notebook runs
without PyTorch; so its state and its logits for two rows of random token ids are saved in
`attention_course/data/gpt2_reference.npz`, which the chapter reads in both frameworks.

    python -m attention_course.gpt2_reference     # write the file again (needs PyTorch)

tests/chapters/ch08_gpt2/test_gpt2.py builds the model again and checks that the file is exactly what it gives.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

FILE = Path(__file__).resolve().parent / "data" / "gpt2_reference.npz"
SMALL = dict(vocab_size=1000, max_len=64, d_model=64, num_heads=4, num_layers=3)
SEED = 0


def compute() -> tuple[dict[str, np.ndarray], np.ndarray, np.ndarray]:
    """Build the model (PyTorch and transformers needed): state, token ids, logits."""
    import torch
    from transformers import GPT2Config, GPT2LMHeadModel

    torch.manual_seed(SEED)
    model = GPT2LMHeadModel(GPT2Config(
        vocab_size=SMALL["vocab_size"], n_positions=SMALL["max_len"], n_embd=SMALL["d_model"],
        n_head=SMALL["num_heads"], n_layer=SMALL["num_layers"], bos_token_id=0,
        eos_token_id=0, attn_implementation="eager")).eval()
    weights = {name: tensor.detach().numpy() for name, tensor in model.state_dict().items()}
    ids = np.random.default_rng(1).integers(0, SMALL["vocab_size"], (2, 40))    # (B, L)
    with torch.no_grad():
        logits = model(torch.as_tensor(ids)).logits.numpy()                   # (B, L, V)
    return weights, ids, logits


def save(path: Path = FILE) -> Path:
    weights, ids, logits = compute()
    path.parent.mkdir(parents=True, exist_ok=True)
    kept = {name: value for name, value in weights.items()
            if name != "lm_head.weight"}        # the token table again: the two are tied
    np.savez_compressed(path, check_ids=ids, logits=logits,
                        **{f"weight:{name}": value for name, value in kept.items()})
    return path


def load(path: Path = FILE) -> tuple[dict[str, np.ndarray], np.ndarray, np.ndarray]:
    """The saved state ({transformers name: array}, without `lm_head.weight`, which is
    `transformer.wte.weight`), token ids (B, L) and the model's logits for them (B, L, V)."""
    with np.load(path) as saved:
        weights = {key.split(":", 1)[1]: saved[key] for key in saved.files
                   if key.startswith("weight:")}
        return weights, saved["check_ids"], saved["logits"]


if __name__ == "__main__":
    print(f"written: {save()}")
