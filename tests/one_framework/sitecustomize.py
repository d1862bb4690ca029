"""Make the other framework impossible to import in a split notebook's kernel.

conftest.py puts this folder first on PYTHONPATH, and sets $COURSE_ONLY_FRAMEWORK to
"keras" or "pytorch", before nbval starts the kernel of a notebook
`notebooks/NN_topic-keras.ipynb` or `-pytorch.ipynb`. Python imports `sitecustomize` at start-up. The import finders are
wrapped so that they no longer find the other framework's packages: `import torch` raises
ModuleNotFoundError and `importlib.util.find_spec("torch")` returns None, as if the package
were not installed (libraries such as transformers and SciPy probe that way). So the test
run proves that each split notebook runs with only its framework installed.
"""
import os
import sys

_OTHER = {"keras": {"torch", "torchvision", "torchaudio"},
          "pytorch": {"tensorflow", "keras", "keras_hub", "tf_keras", "tensorflow_text"}}
_HIDDEN = _OTHER.get(os.environ.get("COURSE_ONLY_FRAMEWORK", ""), set())


class _Without:
    """An import finder that finds everything its wrapped finder finds, but the hidden."""

    def __init__(self, finder):
        self._finder = finder

    def find_spec(self, name, path=None, target=None):
        if name.partition(".")[0] in _HIDDEN:
            return None
        find_spec = getattr(self._finder, "find_spec", None)
        return find_spec(name, path, target) if find_spec else None

    def __getattr__(self, attribute):
        return getattr(self._finder, attribute)


if _HIDDEN:
    sys.meta_path[:] = [_Without(finder) for finder in sys.meta_path]
