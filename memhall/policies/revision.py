"""A policy directory as it was at a git revision, for `policy diff --base REV`."""

from __future__ import annotations

import subprocess
from pathlib import Path

from memhall.domains.errors import InvalidValueError


def export_policy_dir(rev: str, directory: Path, into: Path) -> bool:
    """Write the files of `directory` as of `rev` into `into`.

    Returns False when the directory did not exist at `rev` (nothing written).
    """
    directory = directory.resolve()
    top = Path(_git(directory if directory.is_dir() else directory.parent,
                    "rev-parse", "--show-toplevel").decode().strip())
    prefix = directory.relative_to(top).as_posix()
    _git(top, "rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}")
    listing = _git(top, "ls-tree", "-r", "-z", "--name-only", rev, "--", prefix if prefix != "." else ".")
    names = [name for name in listing.decode().split("\0") if name]
    if not names:
        return False
    for name in names:
        relative = Path(name).relative_to(prefix) if prefix != "." else Path(name)
        target = into / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(_git(top, "show", f"{rev}:{name}"))
    return True


def _git(cwd: Path, *args: str) -> bytes:
    try:
        done = subprocess.run(["git", *args], cwd=cwd, capture_output=True, check=False)
    except OSError as exc:
        raise InvalidValueError(f"cannot run git: {exc}") from None
    if done.returncode != 0:
        detail = done.stderr.decode(errors="replace").strip().splitlines()
        what = detail[-1] if detail else f"git {' '.join(args)} failed"
        if args[:2] == ("rev-parse", "--verify"):
            what = f"unknown git revision {args[-1].removesuffix('^{commit}')!r}"
        raise InvalidValueError(what)
    return done.stdout
