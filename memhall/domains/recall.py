"""The Recall aggregate: what one observer was handed for one query, recorded once.

A recall records at most one event, whatever it hands out: the ids it handed
(in order), so that exposure ("what this agent now holds") and review (a
memory being used) are derived from the log, never from a row per memory.
Recalls as of an earlier time, and evaluation runs, record nothing.
"""

from __future__ import annotations

from datetime import datetime

from eventsourcing.domain import event

from memhall.domains.aggregate import Aggregate


class Recall(Aggregate):
    TOPIC = "memhall.Recall"

    class Created(Aggregate.Created):
        TOPIC = "memhall.Recall.Created"

    class Recorded(Created):
        TOPIC = "memhall.Recall.Recorded"
        domain: str
        observer: str
        query: str
        handed: tuple[str, ...]
        recalled_at: datetime
        #: retrieval-metadata nudges per handed id (reconsolidation), at most 0.05 each
        nudges: dict[str, dict[str, float]] | None = None

    @event(Recorded)
    def __init__(self, *, domain: str, observer: str, query: str, handed: tuple[str, ...],
                 recalled_at: datetime, actor: str, rule: str,
                 nudges: dict[str, dict[str, float]] | None = None) -> None:
        self.domain = domain
        self.observer = observer
        self.handed = handed
