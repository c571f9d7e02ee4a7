"""What is handed out as authority, checked item by item against its events before it is shown.

Readers query the read models, and a read model is only a table: a row can be
edited in the store file. What a reader will treat as knowledge or canon
(`canon`, `knowledge`, ledger B of `materialize`) is therefore compared with
the entry's own events first. The items shown are few, so one aggregate load
each is cheap; a mismatch serves nothing and is an audit failure (exit 4).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Protocol
from uuid import UUID

from memhall.domains.entry import Entry
from memhall.domains.errors import AuditFailureError, NotFoundError
from memhall.domains.values import Status
from memhall.governance.logged import REPAIR
from memhall.governance.streams import DomainStream



class Served(Protocol):
    """An entry as a read model shows it (an EntryView, a ledger B fact)."""

    @property
    def id(self) -> str: ...

    @property
    def layer(self) -> str: ...

    @property
    def kind(self) -> str: ...

    @property
    def text(self) -> str: ...

    @property
    def author(self) -> str: ...


def check_served(stream: DomainStream, items: Iterable[Served]) -> None:
    """Every item must say what its entry's events say, and the entry must be active."""
    table = stream.tables.entries.name
    for item in items:
        try:
            entry: Entry = stream.get(UUID(item.id), kind=Entry)
        except (NotFoundError, ValueError):
            raise AuditFailureError(f"{table}: entry {item.id} has no events in {stream.name}; {REPAIR}") from None
        logged = {"layer": entry.layer.value, "kind": entry.kind.value, "text": entry.text,
                  "author": entry.author}
        for column, value in logged.items():
            shown = getattr(item, column)
            if shown != value:
                raise AuditFailureError(
                    f"{table}: entry {item.id} shows {column} {_short(shown)}, its events say "
                    f"{_short(value)}; {REPAIR}")
        if entry.status is not Status.ACTIVE:
            raise AuditFailureError(
                f"{table}: entry {item.id} is served as active, its events say {entry.status.value}; {REPAIR}")


def _short(value: str) -> str:
    return repr(value if len(value) <= 60 else value[:57] + "...")
