"""What `audit verify` checks of each event as the chain walk reads it: the policy it names
and a human act's signature (`ActsWalk`) and, when the read models are replayed in a process
beside, the rows it implies in the append-only read models (`LoggedCheck`): the walk parses
each event once, and the two processes share the replay's work."""

from __future__ import annotations

from typing import Any

import orjson

from memhall.audit.verify import Watch
from memhall.governance.attestation import ActsReport, ActsWalk
from memhall.governance.projection.ops import LOGGED
from memhall.governance.streamed import LoggedCheck


class EventChecks:
    """One `ActsWalk` per domain walked; with `logged`, one `LoggedCheck` too, on the walk's
    DBAPI connection (`finish` them while its snapshot is open)."""

    def __init__(self, *, logged: bool) -> None:
        self.logged = logged
        self.walks: dict[str, ActsWalk] = {}
        self.checks: dict[str, LoggedCheck | None] = {}
        #: rows of the LOGGED tables compared, per domain walked (None where they diverged), once finished
        self.counts: dict[str, int | None] = {}

    def watch(self, db: Any, dialect: str, tables: set[str], domain: str) -> Watch:
        """The chain walk's `Watch` for `domain`; `tables`: the store's tables."""
        acts = self.walks.setdefault(domain, ActsWalk(domain))
        if not self.logged:
            return acts.event
        prefix = f"mh_{domain}_"
        if not all(prefix + suffix in tables for suffix in (*LOGGED, "entries")):
            self.checks[domain] = None  # left to the thorough way, which says what is missing
            return acts.event
        check = self.checks[domain] = LoggedCheck(db, dialect, prefix)

        def event(position: int, topic: str, data: bytes) -> None:
            state = orjson.loads(data)
            check.event(position, topic, state)
            acts.seen(position, topic, state)

        return event

    def acts(self, domain: str) -> ActsReport:
        return (self.walks.get(domain) or ActsWalk(domain)).report()

    def finish(self) -> None:
        """Compare the last rows and account for every stored one (see `counts`)."""
        self.counts = {domain: check.finish() if check is not None else None
                       for domain, check in self.checks.items()}
