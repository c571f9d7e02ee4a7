"""Beliefs read from the log: the hall's and each agent's, as of a cut (SPEC §5, issue 11).

Everything here is derived at read time from the stored facts (claims, the
evidence on their roots, layer moves, trust claims) through the pure rules of
`memhall.domains.belief`; nothing read here is stored, so a rebuild cannot
disagree with it and aging needs no background job.
"""

from __future__ import annotations

from datetime import datetime, timezone

from sqlalchemy import Connection, func, select

from memhall.domains.belief import AsOf
from memhall.domains.errors import InvalidValueError
from memhall.domains.values import domain_name
from memhall.governance.hall import Hall
from memhall.governance.streams import DomainStream

#: what `--as-of` takes: a time (what was recorded by then) or a log position
AsOfArg = datetime | int | None


def resolve_cut(conn: Connection, stream: DomainStream, as_of: AsOfArg, now: datetime) -> AsOf:
    """The cut of an as-of question. A time counts what was recorded by then; `@N` counts
    events up to position N, and ages are measured to the time N was recorded."""
    if as_of is None:
        return AsOf(now)
    if isinstance(as_of, datetime):
        return AsOf(as_of if as_of.tzinfo else as_of.replace(tzinfo=timezone.utc))
    audit = stream.tables.audit
    at = conn.execute(select(audit.c.at).where(audit.c.position == as_of)).scalar()
    if at is None:
        last = conn.execute(select(func.max(audit.c.position))).scalar() or 0
        raise InvalidValueError(f"no event at @{as_of} in {stream.name} (the log ends at @{last})")
    return AsOf(at, as_of)


def cut_of(hall: Hall, domain: str, as_of: AsOfArg) -> AsOf:
    """The cut for a command's `--as-of` (now when None); the caller has asked the policy."""
    stream = hall.streams.stream(domain_name(domain))
    with hall.store.read() as conn:
        return resolve_cut(conn, stream, as_of, hall.clock())
