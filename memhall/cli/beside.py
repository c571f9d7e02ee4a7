"""A function run in a second interpreter beside the command, for work long enough
that a second core pays for the start-up (`audit verify` replays the read models
there while it walks the chains here).

The child is `python -c` of this module with the same interpreter and environment;
the call and its answer cross its stdin and stdout pickled. What the child raises
comes back and is raised here; a child that dies says so in one line.
"""

from __future__ import annotations

import importlib
import pickle
import subprocess
import sys
from typing import Any, Generic, TypeVar

from memhall.domains.errors import MemhallError

T = TypeVar("T")

_SERVE = "from memhall.cli.beside import serve; serve()"


class Beside(Generic[T]):
    """`module:function(*args)` running in a child process; `result()` waits for it."""

    def __init__(self, target: str, *args: Any) -> None:
        self._process = subprocess.Popen([sys.executable, "-c", _SERVE], stdin=subprocess.PIPE,
                                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        # the call goes now, so the child starts at once (a few hundred bytes: never blocks)
        assert self._process.stdin is not None
        self._process.stdin.write(pickle.dumps((target, args)))
        self._process.stdin.close()
        self._process.stdin = None  # communicate() must not flush it again

    def result(self) -> T:
        out, err = self._process.communicate()
        if self._process.returncode != 0 or not out:
            last = (err.decode(errors="replace").strip().splitlines() or ["no answer"])[-1]
            raise MemhallError(f"the check beside this one stopped (exit {self._process.returncode}): {last}")
        ok, value = pickle.loads(out)
        if not ok:
            raise value
        answer: T = value
        return answer

    def close(self) -> None:
        """Stop the child if it is still at work (its answer is no longer wanted)."""
        if self._process.poll() is None:
            self._process.kill()
        self._process.communicate()


def serve() -> None:
    """The child: read one pickled call from stdin, answer (ok, value) on stdout."""
    target, args = pickle.loads(sys.stdin.buffer.read())
    module, name = target.split(":")
    try:
        answer: tuple[bool, Any] = (True, getattr(importlib.import_module(module), name)(*args))
    except MemhallError as error:
        answer = (False, error)
    try:
        data = pickle.dumps(answer)
    except (pickle.PicklingError, TypeError, AttributeError):
        data = pickle.dumps((False, MemhallError(str(answer[1]))))
    sys.stdout.buffer.write(data)
    sys.stdout.buffer.flush()
