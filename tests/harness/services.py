"""What the tests that start real services share: a free port, and the rule for a missing part."""
from __future__ import annotations

import os
import socket

import pytest


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def unavailable(reason: str) -> None:
    """A part the test needs is missing: skip on a maintainer's machine, fail in CI (CI set),
    where everything must run."""
    if os.environ.get("CI"):
        pytest.fail(reason)
    pytest.skip(reason)
