"""`python -m memhall ARGS` as a process, without paying for a fresh interpreter.

The test worker has already imported memhall, SQLAlchemy, eventsourcing and
cedarpy; a fresh `python -m memhall` spends 0.5-0.7 s importing them again, and
the CLI stories run hundreds of processes. So, by default, a story's process is
a fork of the worker that runs `python -m memhall` (the module, as the entry
point does): a real process all the same — its own pid, exit code, working
directory, environment and file descriptors 0/1/2, and nothing it does reaches
the worker — minus the start-up.

What a fork cannot show, a fresh interpreter does: that the installed entry
point starts, and how long it takes. Stories that are about that pass
`fresh=True`, and MEMHALL_TEST_FRESH_PROCESSES=1 runs every story that way.
"""

from __future__ import annotations

import os
import runpy
import signal
import subprocess
import sys
import tempfile
import time
import traceback
from pathlib import Path

TIMEOUT_S = 120
#: `python -c FROZEN TIME ARGS...`: memhall with the clock frozen at TIME. The command modules are
#: imported first: a pydantic model defined under a frozen clock would see FakeDatetime as its type.
FROZEN = ("import importlib, sys\nfrom freezegun import freeze_time\nfrom memhall.cli.main import COMMANDS, main\n"
          "for target in COMMANDS.values():\n"
          "    importlib.import_module(target.split(':')[0])\n"
          "with freeze_time(sys.argv[1]):\n    main(sys.argv[2:])\n")


def run_memhall(args: list[str], *, cwd: Path, env: dict[str, str], input: str | None = None,
                clock: str | None = None, fresh: bool = False,
                timeout: float = TIMEOUT_S) -> subprocess.CompletedProcess[str]:
    """Run `python -m memhall ARGS` in `cwd` with exactly `env`, its clock frozen at `clock`
    (an ISO time) when one is given; its output as text."""
    command = ([sys.executable, "-m", "memhall", *args] if clock is None
               else [sys.executable, "-c", FROZEN, clock, *args])
    if fresh or os.environ.get("MEMHALL_TEST_FRESH_PROCESSES") or not hasattr(os, "fork"):
        return subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, input=input,
                              timeout=timeout)
    with tempfile.TemporaryFile() as stdin, tempfile.TemporaryFile() as stdout, \
            tempfile.TemporaryFile() as stderr:
        if input is not None:
            stdin.write(input.encode())
            stdin.seek(0)
        pid = os.fork()
        if pid == 0:  # pragma: no cover - the child never returns
            _child(args, cwd, env, clock, stdin.fileno(), stdout.fileno(), stderr.fileno())
        code = _wait(pid, timeout, command)
        stdout.seek(0)
        stderr.seek(0)
        return subprocess.CompletedProcess(command, code, stdout.read().decode(errors="replace"),
                                           stderr.read().decode(errors="replace"))


def _child(args: list[str], cwd: Path, env: dict[str, str], clock: str | None,
           stdin: int, stdout: int, stderr: int) -> None:
    code = 70
    try:
        for source, target in ((stdin, 0), (stdout, 1), (stderr, 2)):
            os.dup2(source, target)
        sys.stdin = open(0, closefd=False)  # noqa: SIM115 - the process ends with them
        sys.stdout = open(1, "w", closefd=False)  # noqa: SIM115
        sys.stderr = open(2, "w", closefd=False)  # noqa: SIM115
        signal.signal(signal.SIGINT, signal.default_int_handler)
        os.chdir(cwd)
        os.environ.clear()
        os.environ.update(env)
        sys.argv = ["memhall", *args]
        try:
            if clock is None:
                runpy.run_module("memhall", run_name="__main__", alter_sys=True)
            else:
                _frozen(clock, args)
            code = 0
        except SystemExit as done:
            if done.code is None or isinstance(done.code, int):
                code = done.code or 0
            else:
                print(done.code, file=sys.stderr)
                code = 1
    except BaseException:
        traceback.print_exc()
    finally:
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except Exception:
                pass
        os._exit(code)


def _frozen(clock: str, args: list[str]) -> None:
    import importlib

    from freezegun import freeze_time

    from memhall.cli.main import COMMANDS, main

    for target in COMMANDS.values():
        importlib.import_module(target.split(":")[0])
    with freeze_time(clock):
        main(args)


def _wait(pid: int, timeout: float, command: list[str]) -> int:
    deadline, pause = time.monotonic() + timeout, 0.001
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return os.waitstatus_to_exitcode(status)
        if time.monotonic() > deadline:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            raise subprocess.TimeoutExpired(command, timeout)
        time.sleep(pause)
        pause = min(pause * 2, 0.02)
