"""A function run in a second interpreter beside the command: it starts at once, its answer
or its error comes back, and one no longer wanted is stopped."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from memhall.cli.beside import Beside
from memhall.domains.errors import MemhallError


def test_the_child_is_at_work_before_its_answer_is_asked_for(tmp_path: Path) -> None:
    made = tmp_path / "made by the child"
    beside: Beside[None] = Beside("os:mkdir", str(made))

    deadline = time.monotonic() + 60
    while not made.exists() and time.monotonic() < deadline:  # a liveness wait, not a timing
        time.sleep(0.02)

    assert made.is_dir()
    assert beside.result() is None


def test_the_answer_comes_back() -> None:
    assert Beside[int]("operator:add", 2, 3).result() == 5


def test_an_error_in_the_child_is_one_line_here() -> None:
    with pytest.raises(MemhallError, match="ZeroDivisionError"):
        Beside[float]("operator:truediv", 1, 0).result()


def test_a_child_no_longer_wanted_is_stopped() -> None:
    beside: Beside[None] = Beside("time:sleep", 600)

    beside.close()

    assert beside._process.returncode is not None
