"""A write's merges read the rows they need at once (one round trip in PostgreSQL's pipeline
mode), and leave the read models exactly as reading each row when it is merged does."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from memhall.governance.projection.apply import MemoryBackend, Projector
from memhall.governance.projection.ops import Merge, Op, Update

THREADS = ["alpha", "beta", "gamma", "delta"]


def moved(entry: str) -> Any:
    def change(row: dict[str, Any]) -> dict[str, Any]:
        return {"entries": row["entries"] + 1, "last_entry": entry}
    return change


def thread_ops(plan: list[tuple[str, bool]]) -> list[Op]:
    ops: list[Op] = []
    for n, (thread, touch) in enumerate(plan):
        if touch:
            ops.append(Update("threads", thread, {"last_at": f"2026-12-01T00:00:{n:02d}Z"}))
        ops.append(Merge("threads", thread, moved(f"e{n}"), default={
            "thread": thread, "entries": 1, "last_entry": f"e{n}", "last_at": "", "position": n}))
    return ops


class Counting(MemoryBackend):
    def __init__(self) -> None:
        super().__init__()
        self.fetches = self.batches = 0

    def fetch(self, table: str, key: str) -> dict[str, Any] | None:
        self.fetches += 1
        return super().fetch(table, key)

    def fetch_many(self, keys: list[tuple[str, str]]) -> dict[tuple[str, str], dict[str, Any] | None]:
        self.batches += 1
        return {key: MemoryBackend.fetch(self, *key) for key in keys}


def stored(existing: list[str]) -> Counting:
    backend = Counting()
    backend.insert("threads", [{"thread": t, "entries": 5, "last_entry": "old", "last_at": "", "position": 0}
                               for t in existing])
    return backend


@settings(max_examples=60, deadline=None)
@given(existing=st.lists(st.sampled_from(THREADS), unique=True),
       plan=st.lists(st.tuples(st.sampled_from(THREADS), st.booleans()), min_size=1, max_size=8))
def test_merges_read_ahead_leave_the_same_rows_as_merges_read_one_by_one(
        existing: list[str], plan: list[tuple[str, bool]]) -> None:
    ops = thread_ops(plan)
    one_by_one, ahead = stored(existing), stored(existing)

    plain = Projector(one_by_one)
    plain.apply(ops)
    plain.flush()
    batched = Projector(ahead)
    batched.prefetch(ops)
    batched.apply(ops)
    batched.flush()

    assert ahead.tables == one_by_one.tables
    assert ahead.fetches == 0 or len({t for t, _ in plan}) == 1  # one row is just read, not batched
    assert ahead.batches <= 1
