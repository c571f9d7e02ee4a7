"""Review queries over the audit log: filters, a reproducible sample, CSV."""

from __future__ import annotations

import csv
import hashlib
import heapq
import io
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import date, datetime, timedelta, timezone

from pydantic import BaseModel
from sqlalchemy import (
    Connection,
    DateTime,
    Integer,
    String,
    Text,
    column,
    select,
    table,
)
from sqlalchemy.sql.elements import ColumnElement
from sqlalchemy.sql.expression import TableClause

from memhall.domains.errors import InvalidValueError
from memhall.domains.moments import from_iso, iso

DECISIONS = ("allowed", "refused")


@dataclass(frozen=True)
class AuditSource:
    """One domain's audit table."""

    domain: str
    table: str


@dataclass(frozen=True)
class Filters:
    """What to keep; `until` is exclusive, every moment is UTC-aware."""

    actor: str | None = None
    action: str | None = None
    layer: str | None = None
    decision: str | None = None
    since: datetime | None = None
    until: datetime | None = None


class AuditRow(BaseModel):
    """One event, allowed or refused, and the policy rule that decided it."""

    domain: str
    position: int
    at: datetime
    actor: str
    action: str
    decision: str
    rule: str
    resource_id: str
    layer: str
    topic: str
    detail: str


COLUMNS = tuple(AuditRow.model_fields)


def moment(value: str, *, end: bool = False) -> datetime:
    """An ISO date or date-time as a UTC bound; a bare date as an `end` bound
    means the whole day is included (it becomes the next midnight)."""
    try:
        if len(value) == 10:
            day = date.fromisoformat(value)
            start = datetime(day.year, day.month, day.day, tzinfo=timezone.utc)
            return start + timedelta(days=1) if end else start
        parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        raise InvalidValueError(f"not an ISO date or date-time: {value!r}") from None
    return parsed.replace(tzinfo=timezone.utc) if parsed.tzinfo is None else parsed.astimezone(timezone.utc)


def rows(conn: Connection, sources: Sequence[AuditSource], filters: Filters) -> list[AuditRow]:
    """Matching rows of every source, oldest first (by time, then domain and position)."""
    if filters.decision is not None and filters.decision not in DECISIONS:
        raise InvalidValueError(f"decision must be one of {', '.join(DECISIONS)}, not {filters.decision!r}")
    found: list[AuditRow] = []
    for source in sources:
        audit = _table(source.table)
        query = select(audit).where(*_conditions(audit, filters)).order_by(audit.c.position)
        for row in conn.execute(query):
            data = dict(row._mapping)
            at = from_iso(data.pop("at"))
            found.append(AuditRow(domain=source.domain, at=at, **data))
    found.sort(key=lambda r: (r.at, r.domain, r.position))
    return found


def sample(found: Iterable[AuditRow], size: int, seed: str) -> list[AuditRow]:
    """`size` rows chosen by seed, oldest first. Each row's rank is a hash of
    the seed and its own place in the log, so the same seed picks the same
    rows, and rows appended later never reshuffle the ones already picked."""
    if size < 1:
        raise InvalidValueError("--sample must be at least 1")
    prefix = f"memhall-sample-v1:{seed}:".encode()

    def rank(row: AuditRow) -> bytes:
        return hashlib.sha256(prefix + f"{row.domain}:{row.position}".encode()).digest()

    picked = heapq.nsmallest(size, found, key=rank)
    return sorted(picked, key=lambda r: (r.at, r.domain, r.position))


def to_csv(found: Iterable[AuditRow]) -> str:
    """Every row with a header; times in ISO 8601 UTC."""
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=COLUMNS, lineterminator="\n")
    writer.writeheader()
    for row in found:
        writer.writerow(row.model_dump(mode="json"))
    return out.getvalue()


def _table(name: str) -> TableClause:
    return table(
        name,
        column("position", Integer),
        column("at", String),
        *(column(c, String) for c in ("actor", "action", "decision", "rule", "resource_id", "layer", "topic")),
        column("detail", Text),
    )


def _conditions(audit: TableClause, filters: Filters) -> list[ColumnElement[bool]]:
    conditions: list[ColumnElement[bool]] = []
    for name in ("actor", "action", "layer", "decision"):
        wanted = getattr(filters, name)
        if wanted is not None:
            conditions.append(audit.c[name] == wanted)
    # times are stored as fixed-width UTC text (memhall.domains.moments): compare as text
    if filters.since is not None:
        conditions.append(audit.c.at >= _stored(filters.since))
    if filters.until is not None:
        conditions.append(audit.c.at < _stored(filters.until))
    return conditions


def _stored(moment_: datetime) -> str:
    return iso(moment_)
