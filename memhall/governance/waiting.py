"""What waits in a handoff: open nominations, open memory requests, the incubation pool.

One reading of each section, on a DBAPI connection (`threads.Reader`), giving
the JSON the handoff shows: the main path (`sessions.handoff`, through
`promotion_records`, `requests` and `incubation`) and the fast path
(`fast_handoff`) both take it from here. Stdlib only (plus orjson): no
SQLAlchemy or pydantic.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from typing import Any, NamedTuple

from memhall.domains.canon import canon_progress
from memhall.domains.dynamics.incubation import asks, incubation_pool
from memhall.domains.moments import from_iso, iso
from memhall.domains.values import BeliefState, Status
from memhall.governance.projection.schema import PROMOTIONS, REQUESTS, from_sql
from memhall.governance.threads import Reader

#: how many open nominations, open requests and incubating items a handoff lists
HANDOFF_NOMINATIONS = 20
HANDOFF_REQUESTS = 20
HANDOFF_INCUBATING = 20
_UNSETTLED = (BeliefState.DOUBTFUL.value, BeliefState.ANOMALOUS.value)


def json_time(moment: datetime | str) -> str:
    """A time as pydantic writes it in JSON (no fraction when there is none)."""
    text = moment if isinstance(moment, str) else iso(moment)
    return text[:-8] + "Z" if text.endswith(".000000Z") else text


# -- nominations ---------------------------------------------------------------------


def missing_members(council: Sequence[str], dissent: Iterable[Mapping[str, str]]) -> list[str]:
    """Council members who have not recorded a dissent position."""
    given = {d["member"] for d in dissent}
    return [m for m in council if m not in given]


def standing(path: str, reminder_sessions: Sequence[str], dissent: Sequence[Mapping[str, str]],
             council: Sequence[str]) -> str:
    if path != "canon":
        return "awaiting the ratify owner"
    return canon_progress(len(reminder_sessions), len(dissent), missing_members(council, dissent))


def nomination_summary(n: Mapping[str, Any]) -> str:
    return (f"promotion {n['id']}: entry {n['entry_id']} {n['from_layer']} -> {n['to_layer']} "
            f"({n['path']}, nominated by {n['nominated_by']}; "
            f"{standing(n['path'], n['reminder_sessions'], n['dissent'], n['council'])})")


_NOMINATION = tuple(c for c in PROMOTIONS.names if c not in ("updated_at", "position"))


def pending_nominations(reader: Reader, limit: int = HANDOFF_NOMINATIONS) -> list[dict[str, Any]]:
    """Open nominations, oldest first (the first `limit`), as `PromotionView` JSON with their summary."""
    out = []
    for values in reader.rows(f"SELECT {', '.join(PROMOTIONS.names)} FROM {reader.prefix}promotions "
                              f"WHERE status = 'open' ORDER BY created_at, id LIMIT {int(limit)}"):
        row = from_sql(PROMOTIONS, values)
        shown = {name: row[name] for name in _NOMINATION}
        shown["created_at"] = json_time(row["created_at"])
        out.append({**shown, "summary": nomination_summary(shown)})
    return out


# -- memory requests ----------------------------------------------------------------


def request_summary(r: Mapping[str, Any]) -> str:
    expires = r["expires_at"] if isinstance(r["expires_at"], datetime) else from_iso(r["expires_at"])
    return f"{r['id']} for {r['seat']} (by {r['requested_by']}, expires {expires:%Y-%m-%d %H:%M}Z): {r['need']}"


def open_requests(reader: Reader, domain: str, now: datetime) -> list[dict[str, Any]]:
    """Requests still open at `now` (an overdue one reads as expired, so is not listed),
    oldest first, as `RequestView` JSON with their summary."""
    out = []
    for values in reader.rows(f"SELECT {', '.join(REQUESTS.names)} FROM {reader.prefix}requests "
                              f"WHERE status = 'open' AND expires_at > ? ORDER BY created_at, id "
                              f"LIMIT {HANDOFF_REQUESTS}", [iso(now)]):
        row = from_sql(REQUESTS, values)
        shown = {"id": row["id"], "domain": domain, "seat": row["seat"], "need": row["need"],
                 "requested_by": row["requested_by"], "status": row["status"],
                 "answer_entry": row["answer_entry"], "answered_by": row["answered_by"],
                 "created_at": json_time(row["created_at"]), "expires_at": json_time(row["expires_at"])}
        out.append({**shown, "summary": request_summary(row)})
    return out


# -- the incubation pool ------------------------------------------------------------


class Unsettled(NamedTuple):
    """An entry as the pool rule reads it (`dynamics.incubation.Pooled`)."""

    id: str
    occurred_at: datetime
    state: BeliefState
    status: Status
    open_question: bool
    contradicts: tuple[str, ...] = ()


def incubation(reader: Reader, limit: int = HANDOFF_INCUBATING) -> list[dict[str, Any]]:
    """The handoff's `incubation` section: each item with its reason, ids and texts, oldest first."""
    items = incubation_pool(unsettled(reader, limit))[:limit]
    texts = texts_of(reader, [i for item in items for i in item.ids])
    return [{
        "reason": item.reason.value, "ids": list(item.ids), "since": item.since.isoformat(),
        "summary": f"{item.reason.value}: " + " / ".join(f"{i} {texts.get(i, '')}".strip() for i in item.ids),
    } for item in items]


def unsettled(reader: Reader, limit: int) -> list[Unsettled]:
    """The oldest unsettled entries and open loops, as many as the pool's first `limit` items
    can come from: read oldest first, a page at a time, until `limit` items are found and the
    last entry read is newer than the last of them (each item is as old as its entry, so no
    entry left unread could come before it). A hall with thousands of open loops reads a page."""
    marks = ", ".join("?" for _ in _UNSETTLED)
    select = (f"SELECT id, occurred_at, kind, state, status, text FROM {reader.prefix}entries "
              f"WHERE status = 'active' AND (state IN ({marks}) OR kind = 'open-loop')")
    page = max(4 * limit, 50)
    read: list[Unsettled] = []
    after: tuple[Any, str] | None = None
    while True:
        rows = reader.rows(f"{select}{' AND (occurred_at, id) > (?, ?)' if after else ''} "
                           f"ORDER BY occurred_at, id LIMIT {page}", (*_UNSETTLED, *(after or ())))
        read += [Unsettled(str(i), from_iso(at), BeliefState(state), Status(status), asks(kind, text))
                 for i, at, kind, state, status, text in rows]
        if len(rows) < page:
            return read
        after = (rows[-1][1], str(rows[-1][0]))
        items = incubation_pool(read)
        if len(items) >= limit and read[-1].occurred_at > items[limit - 1].since:
            return read


def texts_of(reader: Reader, ids: Sequence[str]) -> dict[str, str]:
    found: dict[str, str] = {}
    wanted = list(dict.fromkeys(ids))
    for start in range(0, len(wanted), 500):
        chunk = wanted[start:start + 500]
        marks = ", ".join("?" for _ in chunk)
        found.update((str(i), str(t)) for i, t in reader.rows(
            f"SELECT id, text FROM {reader.prefix}entries WHERE id IN ({marks})", chunk))
    return found


def sections(reader: Reader, domain: str, now: datetime) -> dict[str, list[dict[str, Any]]]:
    """The three sections, as `HandoffView` holds them."""
    return {"pending_nominations": pending_nominations(reader), "open_requests": open_requests(reader, domain, now),
            "incubation": incubation(reader)}
