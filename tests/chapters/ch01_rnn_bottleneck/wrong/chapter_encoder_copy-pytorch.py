# %% encoder_summary
# The chapter's Encoder, pasted under the asked name (what it needs from its module with it).
import torch
from torch import nn
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

from attention_course.data import PAD_ID


def embedding(vocab_size, embed_dim):
    """An embedding drawn from N(0, 1), PyTorch's default (Keras' twin does the same)."""
    return nn.Embedding(vocab_size, embed_dim)


class encoder_summary(nn.Module):
    """Bidirectional GRU: source ids -> every state, plus one summary vector."""

    def __init__(self, vocab_size, embed_dim=32, hidden_dim=64, pad_id=PAD_ID):
        super().__init__()
        self.embedding = embedding(vocab_size, embed_dim)
        self.pad_id = pad_id                         # the id the masks leave out
        self.rnn = nn.GRU(embed_dim, hidden_dim, batch_first=True, bidirectional=True)

    def forward(self, src):                                  # src: (B, S)
        lengths = (src != self.pad_id).sum(dim=1).cpu()
        x = self.embedding(src)                              # (B, S, d_e)
        # Packing makes both directions skip the padding at the end.
        packed = pack_padded_sequence(x, lengths, batch_first=True,
                                      enforce_sorted=False)
        states, last = self.rnn(packed)                      # last: (2, B, d_h)
        states, _ = pad_packed_sequence(states, batch_first=True,
                                        total_length=src.shape[1])
        context = torch.cat([last[0], last[1]], dim=-1)      # (B, 2 d_h): fwd + bwd
        return states, context                           # (B, S, 2 d_h), (B, 2 d_h)
