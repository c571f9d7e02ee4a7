"""The incubation pool: unresolved contradictions and open questions, and when one leaves it.

An item stays while its memories are active and unresolved: a claim left
doubtful or anomalous, two influencing memories that contradict each other,
or a question left open. It leaves when evidence or ratification resolves it
(the claim becomes influencing, past or corrected; the question is closed) or
its memory stops being active (superseded, retired, closed). The pool is a
function of the records, so it is the same after a rebuild.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from enum import Enum
from typing import NamedTuple, Protocol

from memhall.domains.values import BeliefState, Kind, Status


class Unresolved(str, Enum):
    DOUBTFUL = "doubtful"
    ANOMALOUS = "anomalous"
    CONFLICT = "conflict"
    OPEN_QUESTION = "open-question"


class IncubationItem(NamedTuple):
    since: datetime
    reason: Unresolved
    #: one memory, or the two that contradict each other (sorted)
    ids: tuple[str, ...]

    @property
    def key(self) -> str:
        return f"{self.reason.value}:{','.join(self.ids)}"


_DOUBT = {BeliefState.DOUBTFUL: Unresolved.DOUBTFUL, BeliefState.ANOMALOUS: Unresolved.ANOMALOUS}


class Pooled(Protocol):
    """What the pool reads of a memory (a `MemoryRecord`, or a lean row on the handoff's fast path)."""

    @property
    def id(self) -> str: ...
    @property
    def occurred_at(self) -> datetime: ...
    @property
    def state(self) -> BeliefState: ...
    @property
    def status(self) -> Status: ...
    @property
    def open_question(self) -> bool: ...
    @property
    def contradicts(self) -> tuple[str, ...]: ...


def asks(kind: str, text: str) -> bool:
    """An open loop asked as a question is an open question."""
    return kind == Kind.OPEN_LOOP.value and text.rstrip().endswith(("?", "？"))


def incubation_pool(records: Iterable[Pooled]) -> list[IncubationItem]:
    """The pool, oldest first."""
    active = {r.id: r for r in records if r.status is Status.ACTIVE}
    items: set[IncubationItem] = set()
    for record in active.values():
        if record.state in _DOUBT:
            items.add(IncubationItem(record.occurred_at, _DOUBT[record.state], (record.id,)))
        if record.open_question:
            items.add(IncubationItem(record.occurred_at, Unresolved.OPEN_QUESTION, (record.id,)))
        for other_id in record.contradicts:
            other = active.get(other_id)
            if other is not None and _influencing(record) and _influencing(other):
                since = max(record.occurred_at, other.occurred_at)
                items.add(IncubationItem(since, Unresolved.CONFLICT, tuple(sorted((record.id, other_id)))))
    return sorted(items)


def left_pool(before: Iterable[IncubationItem], after: Iterable[IncubationItem]) -> list[IncubationItem]:
    """The items that were in the pool and are no longer: what was resolved in between."""
    remaining = {item.key for item in after}
    return sorted(item for item in before if item.key not in remaining)


def _influencing(record: Pooled) -> bool:
    return record.state is BeliefState.INFLUENCING
