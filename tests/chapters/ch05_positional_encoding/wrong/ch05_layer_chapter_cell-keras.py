# %% sinusoidal_layer
class SinusoidalEncoding(layers.Layer):
    """Adds the fixed sinusoidal encoding to embeddings (B, L, d_model); trains nothing."""

    def __init__(self, max_len, d_model, **kwargs):
        super().__init__(**kwargs)
        self.encoding = self.add_weight(shape=(max_len, d_model), initializer="zeros",
                                        trainable=False, name="encoding")   # a buffer
        self.encoding.assign(sinusoidal_encoding(ops.arange(max_len), d_model))

    def call(self, x):                                # (B, L, d_model) -> (B, L, d_model)
        return x + self.encoding[:ops.shape(x)[1]]
