# %% sinusoidal_layer
class SinusoidalEncoding(layers.Layer):
    """Adds the fixed sinusoidal encoding of the positions start .. start + L - 1 to embeddings
    (B, L, d_model); nothing trainable."""

    def __init__(self, max_len, d_model, **kwargs):
        super().__init__(**kwargs)
        self.encoding = self.add_weight(shape=(max_len, d_model), initializer="zeros",
                                        trainable=True, name="encoding")    # a buffer
        self.encoding.assign(sinusoidal_encoding(ops.arange(max_len), d_model))

    def call(self, x, start=0):
        return x + self.encoding[start:start + ops.shape(x)[1]]   # rows start .. start + L - 1
