"""Grader side of the out-of-kernel check (see ``observe``): do the tests' observations match
the reference solution's?

A test cell's verdict comes from the student's kernel, so code in the notebook can forge it. The
hidden tests therefore also report, through ``observe``, the values they checked; this module,
which runs in the nbgrader process where no student code runs, compares them with the values the
same test cells report when they run against the reference solution (the source notebook in
``solutions/``, run once per assignment in the same sandbox and cached). A test cell that the
kernel calls passed, but whose observations are missing, extra, or differ from the reference's,
is failed with ``AutograderCheckFailed``. Honest work passes both checks: the observations are
exactly the values that each test asserts on, compared with a tolerance (1e-4) looser than the
tests' own. A measurement that depends on the seed or the processor is observed with a
declared range instead (``observe(name, value, within=(low, high))``): the value must lie in
the range that the *reference* run recorded (a range in the student's observations is
ignored), and the reference's own value must lie in it too, or the reference run fails.

What this cannot catch: a submission that forges observations equal to the reference's, which
means computing the right answers on the hidden inputs (by reading them out of the test cell as
it runs, say), and checks that a test makes on behaviour rather than values (a test that refuses
the library GRU, say) when the code dodges them.
"""
from __future__ import annotations

import hashlib
import json
import math
from pathlib import Path

from nbformat.notebooknode import NotebookNode

from .observe import MIME

ATOL = RTOL = 1e-4


def is_test_cell(cell) -> bool:
    info = cell.get("metadata", {}).get("nbgrader", {})
    return cell.get("cell_type") == "code" and bool(info.get("grade")) and not info.get("solution")


def take_observations(nb) -> dict[str, list[dict]]:
    """{grade_id of a test cell: [observation, ...]} from the outputs; removes every observation
    output from every cell (they are for the grader only)."""
    found: dict[str, list[dict]] = {}
    for cell in nb.cells:
        if cell.get("cell_type") != "code":
            continue
        kept = []
        for output in cell.get("outputs", []):
            data = output.get("data", {}) if output.get("output_type") in ("display_data", "execute_result") else {}
            if MIME in data:
                if is_test_cell(cell):
                    found.setdefault(cell.metadata.nbgrader["grade_id"], []).append(data[MIME])
            else:
                kept.append(output)
        cell.outputs = kept
    return found


def _close(a, b) -> bool:
    if isinstance(a, str) or isinstance(b, str):      # "nan" / "inf" as strings
        return a == b
    if isinstance(a, bool) or isinstance(b, bool) or a is None or b is None:
        return a == b
    if not isinstance(a, (int, float)) or not isinstance(b, (int, float)):
        return False
    return math.isfinite(a) and abs(a - b) <= ATOL + RTOL * abs(b)


def same_value(got, want) -> bool:
    """Do two encoded values (``observe.encode``) agree? Types, kinds and shapes exactly, numbers
    within the tolerance."""
    if not isinstance(got, dict) or not isinstance(want, dict) or set(got) != set(want):
        return False
    if "py" in want:
        g, w = got["py"], want["py"]
        if type(g) is not type(w) and not (isinstance(g, (int, float)) and isinstance(w, (int, float))
                                           and not isinstance(g, bool) and not isinstance(w, bool)):
            return False
        return _close(g, w)
    if "list" in want:
        return (isinstance(got["list"], list) and len(got["list"]) == len(want["list"])
                and all(same_value(g, w) for g, w in zip(got["list"], want["list"])))
    if "data" in want:
        if got.get("kind") != want["kind"] or got.get("shape") != want["shape"]:
            return False
        g, w = got["data"], want["data"]
        if not isinstance(g, list) or len(g) != len(w):
            return False
        if want["kind"] in ("int", "bool"):
            return g == w
        return all(_close(x, y) for x, y in zip(g, w))
    return got == want


def _single_number(encoded):
    """The one finite number that an encoded value holds (a Python number, or an array of one
    float or int element), or None."""
    if not isinstance(encoded, dict):
        return None
    if "py" in encoded:
        number = encoded["py"]
    elif encoded.get("kind") in ("float", "int") and isinstance(encoded.get("data"), list) \
            and len(encoded["data"]) == 1:
        number = encoded["data"][0]
    else:
        return None
    if isinstance(number, bool) or not isinstance(number, (int, float)):
        return None
    if not math.isfinite(number):
        return None
    return number


def in_range(encoded, within) -> bool:
    """Is an encoded value one finite number in [low, high]? (``within``: the reference's
    range.)"""
    number = _single_number(encoded)
    low, high = within
    return number is not None and low <= number <= high


def agrees(observed, expected) -> bool:
    """Does one observation confirm the reference's? Within the reference's declared range
    where it declared one, else equal within the tolerance."""
    if "within" in expected:
        return in_range(observed.get("value"), expected["within"])
    return same_value(observed.get("value"), expected["value"])


def reference_out_of_range(observations: dict[str, list[dict]]) -> list[str]:
    """The '<grade id>: <name>' of the reference's range-declared observations whose own value
    lies outside their declared range (a range too narrow for the measurement: the check is
    wrong)."""
    return [f"{grade_id}: {observation['name']}"
            for grade_id, cell_observations in observations.items()
            for observation in cell_observations
            if "within" in observation
            and not in_range(observation["value"], observation["within"])]


def disagreement(got: list[dict], want: list[dict]) -> str | None:
    """Why a test cell's observations do not confirm its result, or None when they do. Says
    which observation, never the reference's values (they would give the hidden answers away)."""
    for index, expected in enumerate(want):
        if index >= len(got):
            return f"the test stopped reporting after {index} of {len(want)} checks"
        observed = got[index]
        if not isinstance(observed, dict) or observed.get("name") != expected["name"]:
            return f"check {index + 1} of {len(want)} reported under another name"
        if "within" in expected and not in_range(expected["value"], expected["within"]):
            name = expected["name"]
            return (f"check {index + 1} of {len(want)} ('{name}'): the reference's own "
                    "measurement lies outside its declared range")
        if not agrees(observed, expected):
            what = "lies outside the accepted range" if "within" in expected else (
                "has other values than the reference")
            return f"check {index + 1} of {len(want)} ('{expected['name']}') {what}"
    if len(got) > len(want):
        return f"{len(got) - len(want)} unexpected extra report(s)"
    return None


def failure_output(reason: str) -> NotebookNode:
    message = (
        "this test's result could not be confirmed outside your notebook's kernel: " + reason + ". "
        "The autograder re-checks the values each test looked at against the reference solution; "
        "they differ when code in the notebook changes how the tests run (redefining the tests' "
        "helpers, assert, allclose or the kernel's error reporting, say). If your code does none of "
        "this, tell your instructor.")
    return NotebookNode(output_type="error", ename="AutograderCheckFailed", evalue=message,
                        traceback=[f"\x1b[0;31mAutograderCheckFailed\x1b[0m: {message}"])


def apply(nb, reference: dict[str, list[dict]], log=None) -> list[str]:
    """Check every test cell of an executed notebook against the reference observations; fail the
    ones that the kernel passed but the observations do not confirm. Returns their grade ids."""
    observed = take_observations(nb)
    failed = []
    for cell in nb.cells:
        if not is_test_cell(cell):
            continue
        grade_id = cell.metadata.nbgrader["grade_id"]
        want = reference.get(grade_id)
        if not want:
            continue
        kernel_failed = any(o.get("output_type") == "error" or
                            (o.get("output_type") == "stream" and o.get("name") == "stderr")
                            for o in cell.get("outputs", []))
        if kernel_failed:
            continue
        reason = disagreement(observed.get(grade_id, []), want)
        if reason:
            # First, so that nbgrader (which stops at the first error or result) scores it 0.
            cell.outputs.insert(0, failure_output(reason))
            failed.append(grade_id)
            if log:
                log.warning("Test cell %s passed in the kernel but failed the out-of-kernel check: %s",
                            grade_id, reason)
    return failed


def checks_digest() -> str:
    """The hash of the hidden tests' checks (``course_checks``), or a marker where they are absent."""
    try:
        from course_checks import checks_digest as digest
    except ImportError:
        return "course_checks-missing"
    return digest()


def recorded_checks_digest(autograded: Path) -> str | None:
    """The checks' hash that an autograded notebook records (execute.SandboxedExecute), if any."""
    try:
        metadata = json.loads(autograded.read_text()).get("metadata", {})
    except (OSError, ValueError):
        return None
    return metadata.get("attention_course", {}).get("checks_digest")


def fingerprint(source: Path) -> str:
    """What the reference observations depend on: the source notebook, the checks its hidden tests
    call, the encoding, the frameworks' versions."""
    from importlib import metadata

    digest = hashlib.sha256(source.read_bytes())
    digest.update(Path(__file__).with_name("observe.py").read_bytes())
    digest.update(checks_digest().encode())           # the hidden tests' checks (course_checks)
    for package in ("numpy", "torch", "tensorflow-cpu", "tensorflow", "keras"):
        try:
            digest.update(f"{package}={metadata.version(package)}".encode())
        except metadata.PackageNotFoundError:
            pass
    return digest.hexdigest()[:20]


def load_cached(path: Path):
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        return None
