"""Results measured outside the notebooks, by the scripts in ``measurements/``.

Some of what a chapter says rests on runs that do not fit in its four minutes: a training
of 4,000 steps, several seeds, another recipe, another processor. Each such run is made by a
script in ``measurements/`` (one command reruns it: ``python -m measurements.<name>``), which
adds its runs to ``book/results/measured/<name>.json``. Every run records the processor model,
the seed, the commit and the date beside what it measured; a run on another machine is added
to the runs already recorded (the same processor, seed and arm replace the older run), so the
file holds every processor the course has been measured on.

A chapter loads the file, prints the range over the recorded runs (the numbers its prose
quotes), says that they were measured outside the notebook and by which script, and checks
that its own run falls in that range, widened by a margin the chapter states:

    span = measured.span("ch06_seeds", "accuracy", model="transformer")
    print(span)                          # 0.79 to 0.84 over 6 runs (seeds 0-2, 2 processors) ...
    span.check(accuracy, margin=0.02)    # this run within [0.77, 0.86], or an AssertionError
"""
from __future__ import annotations

import json
import os
import platform
import re
import subprocess
import sys
from dataclasses import dataclass
from datetime import date
from pathlib import Path

from . import results

ROOT = Path(__file__).resolve().parents[1]
KEYS = ("processor", "seed", "arm")     # what tells one recorded run from another


def path(name: str) -> Path:
    """The committed file of a measurement: book/results/measured/<name>.json."""
    return results.path(f"measured/{name}")


def processor() -> str:
    """The processor's model name as the operating system gives it
    ("Intel(R) Xeon(R) Processor", "AMD EPYC 7B13", "Apple M2")."""
    if sys.platform.startswith("linux"):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.lower().startswith("model name"):
                return re.sub(r"\s+", " ", line.split(":", 1)[1]).strip()
    if sys.platform == "darwin":
        try:
            return subprocess.run(["sysctl", "-n", "machdep.cpu.brand_string"],
                                  capture_output=True, text=True, check=True).stdout.strip()
        except (OSError, subprocess.CalledProcessError):
            pass
    return platform.processor() or platform.machine()


def commit() -> str:
    """The course's commit, with "+changes" when the work tree differs from it."""
    try:
        head = subprocess.run(["git", "rev-parse", "--short=12", "HEAD"], cwd=ROOT,
                              capture_output=True, text=True, check=True).stdout.strip()
        changed = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"],
                                 cwd=ROOT, capture_output=True, text=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return head + ("+changes" if changed else "")


def load(name: str) -> dict:
    """The recorded file: {"script": ..., "about": ..., "runs": [...]}."""
    return json.loads(path(name).read_text(encoding="utf-8"))


def record(name: str, script: str, about: str, runs: list[dict]) -> Path:
    """Add ``runs`` (dicts of what one run measured, each with its "seed" and, where a script
    compares several set-ups, its "arm") to book/results/measured/<name>.json, with this
    machine's processor, the commit, the date and the Python version. A run with the same
    processor, seed and arm as a recorded one replaces it."""
    stamp = {"processor": processor(), "commit": commit(), "date": date.today().isoformat(),
             "python": platform.python_version(), "threads": os.environ.get("OMP_NUM_THREADS")}
    target = path(name)
    old = json.loads(target.read_text(encoding="utf-8"))["runs"] if target.exists() else []
    new = [{**stamp, **run} for run in runs]
    fresh = {tuple(run.get(k) for k in KEYS) for run in new}
    kept = [run for run in old if tuple(run.get(k) for k in KEYS) not in fresh]
    target.parent.mkdir(parents=True, exist_ok=True)
    content = {"script": script, "about": about, "runs": kept + new}
    target.write_text(json.dumps(content, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    return target


def runs(name: str, **where) -> list[dict]:
    """The recorded runs whose fields equal ``where`` (e.g. arm="post-LN", framework="keras")."""
    chosen = [run for run in load(name)["runs"]
              if all(run.get(key) == value for key, value in where.items())]
    if not chosen:
        raise LookupError(f"{path(name)} has no run with {where}")
    return chosen


@dataclass(frozen=True)
class Span:
    """The lowest and highest value of one metric over recorded runs, and where they ran."""
    name: str
    metric: str
    low: float
    high: float
    count: int
    seeds: tuple
    processors: tuple

    def __str__(self) -> str:
        seeds = ", ".join(str(seed) for seed in self.seeds)
        return (f"{self.metric}: {self.low:.4g} to {self.high:.4g} over {self.count} runs "
                f"(seeds {seeds}; {len(self.processors)} processor model"
                f"{'s' if len(self.processors) > 1 else ''}), measured outside the notebook "
                f"by measurements/{self.script_name}")

    @property
    def script_name(self) -> str:
        return load(self.name)["script"].removeprefix("measurements/")

    def check(self, value: float, margin: float) -> None:
        """Assert that ``value`` (this run's) lies within [low − margin, high + margin]."""
        low, high = self.low - margin, self.high + margin
        assert low <= value <= high, (
            f"{self.metric} = {value:.4g} in this run, outside {low:.4g} to {high:.4g} (the "
            f"{self.count} recorded runs of {path(self.name).name}, ± {margin}): a change in "
            f"the chapter's code or a new processor; rerun python -m measurements.{self.name}")


def span(name: str, metric: str, **where) -> Span:
    """The range of ``metric`` over the recorded runs that match ``where``."""
    chosen = runs(name, **where)
    values = [float(run[metric]) for run in chosen]
    return Span(name, metric, min(values), max(values), len(values),
                tuple(sorted({run.get("seed") for run in chosen}, key=str)),
                tuple(sorted({run["processor"] for run in chosen})))
