"""Checkpoints: chain heads kept outside the database, one JSON line each."""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from datetime import datetime
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from memhall.domains.errors import AuditFailureError

#: where `memhall audit checkpoint` appends, relative to the working directory
DEFAULT_PATH = Path("memhall-audit") / "checkpoints.jsonl"


class Checkpoint(BaseModel):
    """The head of one domain's chain at one position, and when it was taken.

    A chain alone cannot show that its tail was cut off, that an older copy of
    the database was restored, or that history was edited and the whole chain
    recomputed. A checkpoint committed to git can: whatever the database holds
    later must still pass through this head at this position.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    domain: str = Field(min_length=1, max_length=40)
    position: int = Field(ge=0)
    head: str = Field(pattern=r"^[0-9a-f]{64}$")
    at: datetime
    #: the identity of the store it was taken of (None in files from before it existed)
    store: str | None = None
    #: the human who took it, when that human has a key: then `signature` is theirs over `signed()`
    by: str | None = None
    signature: str | None = None

    def signed(self) -> dict[str, str | int | None]:
        """The fields a taker's signature covers (all but the signature)."""
        return {"checkpoint.domain": self.domain, "checkpoint.position": self.position,
                "checkpoint.head": self.head, "checkpoint.at": self.at.isoformat(),
                "checkpoint.store": self.store, "checkpoint.by": self.by}


def load(path: Path) -> list[Checkpoint]:
    """Every checkpoint in the file, in file order; a line that is not one fails the audit."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except FileNotFoundError:
        raise AuditFailureError(f"checkpoint file not found: {path}") from None
    found: list[Checkpoint] = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            found.append(Checkpoint.model_validate_json(line))
        except ValidationError:
            raise AuditFailureError(f"{path}:{number} is not a checkpoint line") from None
    return found


def append(path: Path, checkpoints: Iterable[Checkpoint]) -> None:
    """Append one line per checkpoint (the file is meant to be committed)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    # One write on an O_APPEND descriptor, under an exclusive lock: concurrent
    # wrap-ups append whole lines, never interleaved halves.
    data = "".join(checkpoint.model_dump_json() + "\n" for checkpoint in checkpoints).encode("utf-8")
    descriptor = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        _lock(descriptor)
        os.write(descriptor, data)
        os.fsync(descriptor)
    finally:
        os.close(descriptor)


def _lock(descriptor: int) -> None:
    try:
        import fcntl
    except ImportError:  # pragma: no cover - Windows: O_APPEND alone
        return
    fcntl.flock(descriptor, fcntl.LOCK_EX)


def of_store(path: Path, found: Sequence[Checkpoint], store: str | None) -> list[Checkpoint]:
    """The checkpoints, refusing a file taken of another store: verifying a store
    against someone else's heads would only report a confusing rewrite."""
    foreign = sorted({c.store for c in found if c.store and store and c.store != store})
    if foreign:
        raise AuditFailureError(
            f"{path} holds checkpoints of store {', '.join(foreign)}, not of this store ({store}): "
            "pass this store's file with --checkpoints")
    return list(found)


def latest(checkpoints: Sequence[Checkpoint]) -> dict[str, Checkpoint]:
    """The furthest checkpoint of each domain."""
    furthest: dict[str, Checkpoint] = {}
    for checkpoint in checkpoints:
        known = furthest.get(checkpoint.domain)
        if known is None or checkpoint.position > known.position:
            furthest[checkpoint.domain] = checkpoint
    return furthest
