"""Shared code of the course "Attention and Transformers, in Keras and PyTorch".

Framework-neutral modules: ``common`` (seeding, devices, threads), ``data``
(the offline translation-pair task), ``evaluation``, ``plotting``, ``progress``.
Framework modules come in parallel pairs with the same names and the same
classes: ``torch_*`` for PyTorch and ``keras_*`` for Keras.  The model modules
(``torch_seq2seq`` / ``keras_seq2seq``, ...) are generated from the chapter
cells marked ``#| export`` (see ``course_tools.export``).
"""
from . import common  # noqa: F401  (sets TensorFlow's quiet-start environment first)

__version__ = "0.1.0"
