"""Threads in the read models: one row per thread, moved by every entry written in it."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from memhall.governance.projection.entries import WRITTEN, thread_of
from memhall.governance.projection.ops import Merge, Op, State, projects
from memhall.governance.projection.schema import iso


@projects(WRITTEN)
def _written(e: State, position: int) -> Iterable[Op]:
    thread, at, entry = thread_of(e), iso(e["timestamp"]), e["originator_id"]

    def moved(row: dict[str, Any]) -> dict[str, Any]:
        return {"entries": row["entries"] + 1, "last_entry": entry, "last_at": at, "position": position}

    yield Merge("threads", thread, moved, default={"thread": thread, "entries": 1, "last_entry": entry,
                                                   "last_at": at, "position": position})
