# %% sinusoidal_layer
class SinusoidalEncoding(layers.Layer):
    """Adds the fixed sinusoidal encoding to embeddings (B, L, d_model); nothing trainable."""

    def __init__(self, max_len, d_model, **kwargs):
        super().__init__(**kwargs)
        self.encoding = self.add_weight(shape=(max_len, d_model), initializer="zeros",
                                        trainable=True, name="encoding")   # a buffer
        self.encoding.assign(sinusoidal_encoding(max_len, d_model))

    def call(self, x):
        return x + self.encoding[:ops.shape(x)[1]]
