"""The grading copies of the course package (attention_course/grading/hide.py), mostly
without grading: every assignment's copy replaces exactly its asked names by stand-ins, keeps
the kept ones under a private name for the package's own code, and is made once (cached by
hash); the sandboxed Python imports that copy; the own-work cell flags the course's
versions."""
import ast

import pytest

from attention_course.grading import hide
from course_tools import manifest

ASSIGNMENTS = list(manifest.assignment_marks())


@pytest.fixture(scope="module")
def cache(tmp_path_factory):
    """A cache folder of this module's own."""
    folder = tmp_path_factory.mktemp("grading-packages")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("ATTENTION_COURSE_CACHE", str(folder))
        yield folder


def definitions(path):
    """{name: the top-level class or function statement} of a module file."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return {node.name: node for node in tree.body if hasattr(node, "name")}


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_each_asked_name_is_a_stand_in(cache, assignment):
    """... and each withheld one (chapter 6's batched beam_search, which its one-source beam
    search part could wrap)."""
    hidden, kept = hide.hidden_names(manifest.MANIFEST, assignment)
    assert hidden, f"{assignment}: course.toml asks for nothing"
    chapter = next(c for c in manifest.chapters() if assignment in c.assignments)
    framework = hide.framework_of(assignment)
    expected = set(chapter.asked.get(framework, ())) | set(chapter.withheld.get(framework, ()))
    assert {f"{module}.{name}" for module, names in hidden.items() for name in names} == expected
    copy = hide.grading_package(manifest.MANIFEST, assignment)
    assert copy.parent.parent == cache / "grading-packages"
    for module, names in hidden.items():
        defined = definitions(copy / f"{module}.py")
        for name in names:
            raised = [node for node in ast.walk(defined[name]) if isinstance(node, ast.Raise)]
            assert len(raised) == 1 and "write your own" in ast.unparse(raised[0]), name
            assert (hide.KEPT_PREFIX + name in defined) == (name in kept.get(module, [])), name


def test_a_stand_in_raises_the_message_the_feedback_shows():
    source = ("class Layer:\n    pass\n\n"
              "def f():\n    return Layer()\n\n"
              "def g():\n    return f()\n")
    namespace = {}
    exec(hide.without_references(source, ["Layer", "g"], ["Layer"], "m.py"), namespace)
    assert isinstance(namespace["f"](), namespace[hide.KEPT_PREFIX + "Layer"])
    message = "g is the course's reference; the grader does not provide it: write your own"
    with pytest.raises(NotImplementedError, match=message):
        namespace["g"]()
    with pytest.raises(NotImplementedError):
        type("Mine", (namespace["Layer"],), {})()          # a subclass that adds nothing


def test_a_copy_is_made_once(cache):
    first = hide.grading_package(manifest.MANIFEST, "08-gpt2-pytorch")
    stamp = (first / "torch_gpt2.py").stat().st_mtime_ns
    assert hide.grading_package(manifest.MANIFEST, "08-gpt2-pytorch") == first
    assert (first / "torch_gpt2.py").stat().st_mtime_ns == stamp


def test_an_unknown_asked_name_fails_the_manifest_check():
    chapter = manifest.chapters()[2]
    unknown = {"pytorch": ("torch_self_attention.nope",)}
    wrong = manifest.dataclasses.replace(chapter, asked=unknown)
    problems = manifest.asked_problems(wrong)
    assert any("does not define 'nope'" in problem for problem in problems)
    assert not manifest.asked_problems(chapter) and not manifest.own_work_problems(chapter)


def test_the_sandboxed_python_imports_the_grading_copy(tmp_path, cache):
    """The kernel's Python (launch.build_command, with a short script in place of the kernel)
    imports the assignment's copy from /opt/attention-course, meets the stand-in, and finds no
    other copy of the package: not the grader's, not the one the environment's finder names."""
    import os
    import shutil
    import subprocess
    import sys

    from attention_course.grading import launch

    if not shutil.which("bwrap"):
        pytest.fail("autograding needs bwrap: apt-get install bubblewrap")
    work = tmp_path / "03-self-attention-pytorch"
    (tmp_path / "private" / "ipc").mkdir(parents=True)
    work.mkdir()
    connection = tmp_path / "connection.json"
    connection.write_text("{}")
    settings = {**launch.DEFAULTS, "private_dir": str(tmp_path / "private"),
                "uid": os.getuid(), "manifest": str(manifest.MANIFEST)}
    command = launch.build_command(str(connection), [], str(work), settings)
    script = ("import attention_course, importlib, pathlib\n"
              "print(attention_course.__file__)\n"
              "module = importlib.import_module('attention_course.torch_self_attention')\n"
              "try:\n    module.scaled_dot_product_attention(1, 2, 3)\n"
              "except NotImplementedError as error:\n    print(error)\n"
              f"grader = pathlib.Path({str(hide.PACKAGE)!r}, 'torch_self_attention.py')\n"
              "found = grader.exists() and 'write your own' in grader.read_text()\n"
              "print(found if grader.exists() else 'absent')\n")
    command = command[:command.index(sys.executable) + 1] + ["-c", script]
    run = subprocess.run(command, capture_output=True, text=True, timeout=120)
    lines = run.stdout.split("\n")
    assert lines[0] == f"{launch.PACKAGES}/attention_course/__init__.py"
    assert "the grader does not provide it" in lines[1]
    assert lines[2] in ("absent", "True"), "the grader's own copy is readable in the sandbox"


def test_the_own_work_cell_flags_the_course_s_versions():
    """The assignments' own-work cell (attention_course/grading/own_work.py): an import, or a
    subclass that only renames the course's class, is flagged; the notebook's own code is not,
    even where it builds on a course class that the assignment does not ask for."""
    from attention_course.grading.own_work import assert_own_work
    from attention_course.torch_multi_head import MultiHeadAttention
    from attention_course.torch_self_attention import SelfAttention, causal_mask

    class CausalSelfAttention(MultiHeadAttention):     # chapter 8's answer: its own subclass
        pass

    def padding_mask():
        return None

    assert_own_work({"padding_mask": padding_mask, "CausalSelfAttention": CausalSelfAttention},
                    ["padding_mask", "CausalSelfAttention"])
    renamed = type("SelfAttention", (SelfAttention,), {"__module__": "__main__"})
    for name, value in (("causal_mask", causal_mask), ("SelfAttention", renamed)):
        with pytest.raises(AssertionError, match=f"{name} is the course's version, not yours"):
            assert_own_work({name: value}, [name])
    with pytest.raises(AssertionError, match="padding_mask is not defined"):
        assert_own_work({}, ["padding_mask"])
