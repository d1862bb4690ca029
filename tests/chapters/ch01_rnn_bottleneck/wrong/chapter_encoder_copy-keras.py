# %% encoder_summary
# The chapter's Encoder, pasted under the asked name (what it needs from its module with it).
import keras
from keras import layers, ops

from attention_course.data import PAD_ID


def embedding(vocab_size, embed_dim):
    """An embedding initialised like PyTorch's: N(0, 1), not Keras' U(-0.05, 0.05)."""
    normal = keras.initializers.RandomNormal(stddev=1.0)
    return layers.Embedding(vocab_size, embed_dim, embeddings_initializer=normal)


class encoder_summary(layers.Layer):
    """Bidirectional GRU: source ids -> every state, plus one summary vector."""

    def __init__(self, vocab_size, embed_dim=32, hidden_dim=64, pad_id=PAD_ID, **kwargs):
        super().__init__(**kwargs)
        self.embedding = embedding(vocab_size, embed_dim)
        self.pad_id = pad_id                         # the id the masks leave out
        self.rnn = layers.Bidirectional(
            layers.GRU(hidden_dim, return_sequences=True, return_state=True))
        self.rnn.build((None, None, embed_dim))     # sizes known: weights now, like PyTorch

    def call(self, src):                                     # src: (B, S)
        x = self.embedding(src)                              # (B, S, d_e)
        # The mask makes both directions skip the padding at the end.
        states, forward_last, backward_last = self.rnn(x, mask=src != self.pad_id)
        context = ops.concatenate([forward_last, backward_last], axis=-1)  # (B, 2 d_h)
        return states, context                           # (B, S, 2 d_h), (B, 2 d_h)
