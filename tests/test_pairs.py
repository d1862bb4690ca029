"""Every Keras module has a PyTorch twin with the same public API.

`attention_course/keras_X.py` and `attention_course/torch_X.py` are a pair. For
each pair this test checks that

- both modules exist;
- every public class and function (a name without a leading underscore, defined
  in the module itself, not imported into it) exists in both;
- functions have the same signature: parameter names, order, kinds and defaults;
- classes have the same constructor (Keras' trailing ``**kwargs``, which it passes
  on to ``keras.layers.Layer``, is ignored), the same call (Keras ``call`` against
  PyTorch ``forward``; Keras' ``training`` argument is ignored), and the same
  other public methods, with the same signatures.

Framework hooks that only one framework has (``build``, ``get_config``,
``compute_mask``, ...; ``reset_parameters``, ``extra_repr``) are not part of a
class's public API. There is no allowlist: something that truly exists in one
framework only (a Keras callback, say) is private (leading underscore) or lives
in a module without a ``keras_``/``torch_`` prefix (see CONTRIBUTING.md, "Pairs").

Names are collected from the source files (no import at collection time); the
modules are imported only by the signature checks.
"""

from __future__ import annotations

import ast
import importlib
import inspect
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "attention_course"
PREFIXES = ("keras_", "torch_")

# Methods that belong to one framework's protocol, not to the course's API.
KERAS_HOOKS = {
    "build", "build_from_config", "call", "compute_mask", "compute_output_shape",
    "compute_output_spec", "from_config", "get_config", "get_build_config",
    "train_step", "test_step", "predict_step", "compile", "fit",
}
TORCH_HOOKS = {"forward", "reset_parameters", "extra_repr"}


def _stems() -> list[str]:
    """'seq2seq' for keras_seq2seq.py / torch_seq2seq.py, over both prefixes."""
    return sorted(
        {p.stem.split("_", 1)[1] for prefix in PREFIXES for p in PACKAGE.glob(prefix + "*.py")}
    )


def _public_names(path: Path) -> dict[str, str]:
    """Top-level public classes and functions of a source file: name -> 'class'|'function'."""
    if not path.exists():
        return {}
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names = {}
    for node in tree.body:
        if isinstance(node, ast.ClassDef):
            kind = "class"
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            kind = "function"
        else:
            continue
        if not node.name.startswith("_"):
            names[node.name] = kind
    return names


def _cases() -> list:
    cases = []
    for stem in _stems():
        keras_names = _public_names(PACKAGE / f"keras_{stem}.py")
        torch_names = _public_names(PACKAGE / f"torch_{stem}.py")
        for name in sorted(set(keras_names) | set(torch_names)):
            cases.append(pytest.param(stem, name, id=f"{stem}.{name}"))
    return cases


def _module(framework: str, stem: str):
    return importlib.import_module(f"attention_course.{framework}_{stem}")


def _default(p: inspect.Parameter) -> str:
    if p.default is p.empty:
        return "<none>"
    if inspect.isfunction(p.default) or inspect.isclass(p.default):
        return f"<{p.default.__qualname__}>"  # no memory address
    return repr(p.default)


def _describe(params: list[inspect.Parameter]) -> list[tuple]:
    """What must agree between the twins: name, kind, default (by repr)."""
    return [(p.name, p.kind.description, _default(p)) for p in params]


def _show(params: list[inspect.Parameter]) -> str:
    return "(" + ", ".join(str(p.replace(annotation=p.empty)) for p in params) + ")"


def _params(func, drop_self: bool = False, drop_training: bool = False,
            drop_var_keyword: bool = False) -> list[inspect.Parameter]:
    params = list(inspect.signature(func).parameters.values())
    if drop_self and params and params[0].name == "self":
        params = params[1:]
    if drop_training:
        params = [p for p in params if p.name != "training"]
    if drop_var_keyword and params and params[-1].kind is inspect.Parameter.VAR_KEYWORD:
        params = params[:-1]
    return params


def _compare(what: str, keras_params, torch_params) -> list[str]:
    if _describe(keras_params) == _describe(torch_params):
        return []
    return [f"{what} differs:\n    Keras   {_show(keras_params)}\n"
            f"    PyTorch {_show(torch_params)}"]


def _own_init(cls):
    """The constructor of the nearest course class that defines one (None: the framework's)."""
    for klass in cls.__mro__:
        if klass.__module__.startswith("attention_course") and "__init__" in vars(klass):
            return vars(klass)["__init__"]
    return None


def _own_methods(cls, hooks: set[str]) -> dict:
    """Public methods that the course's own classes define (inherited ones included)."""
    methods = {}
    for klass in reversed(cls.__mro__):
        if not klass.__module__.startswith("attention_course"):
            continue
        for name, value in vars(klass).items():
            if name.startswith("_") or name in hooks:
                continue
            if isinstance(value, (staticmethod, classmethod)):
                value = value.__func__
            if inspect.isfunction(value):
                methods[name] = value
    return methods


@pytest.mark.parametrize("stem", _stems())
def test_module_has_its_twin(stem):
    missing = [f"{prefix}{stem}.py" for prefix in PREFIXES
               if not (PACKAGE / f"{prefix}{stem}.py").exists()]
    assert not missing, (
        f"attention_course/{missing[0]} is missing: a keras_/torch_ module needs its twin "
        "(or, if it is framework-specific, a name without the prefix)"
    )


def _pair_problems(stem: str, name: str) -> list[str]:
    """Everything that differs between keras_<stem>.<name> and torch_<stem>.<name>."""
    keras_names = _public_names(PACKAGE / f"keras_{stem}.py")
    torch_names = _public_names(PACKAGE / f"torch_{stem}.py")
    if not keras_names or not torch_names:
        return [f"{stem}: only one module of the pair exists (see test_module_has_its_twin)"]
    for framework, names in (("keras", keras_names), ("torch", torch_names)):
        if name not in names:
            other = "torch" if framework == "keras" else "keras"
            return [f"{name} is public in {other}_{stem} but missing from {framework}_{stem}: "
                    f"add its twin, or make it private (_{name})"]
    if keras_names[name] != torch_names[name]:
        return [f"{name} is a {keras_names[name]} in keras_{stem} and a "
                f"{torch_names[name]} in torch_{stem}"]

    keras_obj = getattr(_module("keras", stem), name)
    torch_obj = getattr(_module("torch", stem), name)
    if keras_names[name] == "function":
        return _compare(f"{name}()", _params(keras_obj), _params(torch_obj))

    keras_init, torch_init = _own_init(keras_obj), _own_init(torch_obj)
    problems = []
    if keras_init and torch_init:
        problems += _compare(
            f"{name}.__init__",
            _params(keras_init, drop_self=True, drop_var_keyword=True),
            _params(torch_init, drop_self=True),
        )
    elif keras_init or torch_init:
        where = "Keras" if keras_init else "PyTorch"
        problems.append(f"{name}: only the {where} class defines __init__")
    has_call, has_forward = hasattr(keras_obj, "call"), hasattr(torch_obj, "forward")
    if has_call and has_forward:
        problems += _compare(
            f"{name}.call / {name}.forward",
            _params(keras_obj.call, drop_self=True, drop_training=True),
            _params(torch_obj.forward, drop_self=True),
        )
    elif has_call != has_forward:
        problems.append(f"{name}: the Keras class has call: {has_call}, "
                        f"the PyTorch class has forward: {has_forward}")
    keras_methods = _own_methods(keras_obj, KERAS_HOOKS)
    torch_methods = _own_methods(torch_obj, TORCH_HOOKS)
    for method in sorted(set(keras_methods) ^ set(torch_methods)):
        where = "Keras" if method in keras_methods else "PyTorch"
        problems.append(f"{name}.{method} exists only in the {where} class")
    for method in sorted(set(keras_methods) & set(torch_methods)):
        problems += _compare(
            f"{name}.{method}",
            _params(keras_methods[method], drop_self=True),
            _params(torch_methods[method], drop_self=True),
        )
    return problems


@pytest.mark.parametrize("stem, name", _cases())
def test_public_name_is_a_true_pair(stem, name):
    problems = _pair_problems(stem, name)
    if problems:
        pytest.fail(f"keras_{stem} / torch_{stem}:\n" + "\n".join(problems), pytrace=False)
