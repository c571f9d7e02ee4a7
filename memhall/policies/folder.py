"""Which policy folder is in force: stdlib only, so a session start can ask without reading the policy."""

from __future__ import annotations

from pathlib import Path

from memhall.domains.errors import InvalidValueError

#: the policy folder a project keeps beside its code, found in the working directory
POLICY_DIR = "memhall-policy"


def policy_directory(given: str | None, cwd: Path | None = None) -> Path | None:
    """The policy folder in force: the one given, else ./memhall-policy/ if
    present, else None (the defaults shipped with memhall)."""
    if given:
        path = Path(given)
        if not path.is_dir():
            raise InvalidValueError(f"policy directory not found: {path}")
        return path
    local = (cwd or Path.cwd()) / POLICY_DIR
    return local if local.is_dir() else None
