"""Exposure: who holds which entry, derived from the events that put it in front of them.

An agent holds what it wrote, what was said to it or in its presence (the
entry's addressees and participants), and what it was handed: by a
materialization (ledgers A and B), an answer to its MEMORY REQUEST, a handoff
and a recall. Evidence an agent records adds itself here (beliefs). Rows are
facts of the log, never decided by a reader. (An entry's author, addressees and
participants are projected in `written`.)
"""

from __future__ import annotations

from collections.abc import Iterable

from memhall.governance.projection.ops import Op, State, insert, projects
from memhall.governance.projection.schema import iso


def held(state: State, position: int, via: str, pairs: Iterable[tuple[str, str]]) -> Iterable[Op]:
    """One row per (holder, entry), keyed by the event's position."""
    at = iso(state["timestamp"])
    seen: set[tuple[str, str]] = set()
    for holder, entry_id in pairs:
        if holder and entry_id and (holder, entry_id) not in seen:
            seen.add((holder, entry_id))
            yield insert("exposure", {"id": f"{position}:{holder}:{entry_id}", "holder": holder,
                                      "entry_id": entry_id, "via": via, "position": position, "at": at})


@projects("memhall.Materialization.Recorded", logged=True)
def _materialized(e: State, position: int) -> Iterable[Op]:
    ids = [*e["ledger_a"], *e["ledger_b"]]
    yield from held(e, position, "materialize", [(e["seat"], i) for i in ids])


@projects("memhall.MemoryRequest.Answered", logged=True)
def _answered(e: State, position: int) -> Iterable[Op]:
    yield from held(e, position, "answer", [(e.get("seat") or "", e["entry_id"])])


@projects("memhall.Session.Opened", logged=True)
def _handed_off(e: State, position: int) -> Iterable[Op]:
    yield from held(e, position, "handoff", [(e["principal"], i) for i in e.get("handed") or ()])


@projects("memhall.Recall.Recorded", logged=True)
def _recalled(e: State, position: int) -> Iterable[Op]:
    yield from held(e, position, "recall", [(e["observer"], i) for i in e["handed"]])
