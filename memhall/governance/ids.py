"""Ids as people type them: the whole id, or a unique prefix of at least six
characters (as git shortens commits), of an entry, a promotion, a memory
request or a session, looked up among the ids of that kind in one domain.

Looking an id up by its kind is also what keeps an id of another kind from
reaching a use case: `ratify <entry id>` is "no promotion … in company".
"""

from __future__ import annotations

from enum import Enum
from string import hexdigits
from uuid import UUID

from sqlalchemy import Connection, Table, select

from memhall.domains.errors import AmbiguousIdError, InvalidValueError, NotFoundError, UnknownDomainError
from memhall.domains.values import domain_name
from memhall.governance.hall import Hall
from memhall.governance.tables import DomainTables, tables_for

MIN_PREFIX = 6
#: at most this many candidates are listed for an ambiguous prefix
SHOWN = 10
_GROUPS = (8, 4, 4, 4, 12)


class IdKind(str, Enum):
    ENTRY = "entry"
    PROMOTION = "promotion"
    REQUEST = "memory request"
    SESSION = "session"

    def table(self, tables: DomainTables) -> Table:
        return {
            IdKind.ENTRY: tables.entries,
            IdKind.PROMOTION: tables.promotions,
            IdKind.REQUEST: tables.requests,
            IdKind.SESSION: tables.sessions,
        }[self]


def canonical_prefix(text: str) -> str:
    """`text` as the start of a canonical (lowercase, dashed) UUID string; the
    dashes may be left out."""
    digits = text.strip().lower().replace("-", "")
    if not MIN_PREFIX <= len(digits) <= 32 or any(c not in hexdigits for c in digits):
        raise InvalidValueError(
            f"invalid id {text!r}: give the whole id or its first {MIN_PREFIX} characters or more")
    groups, start = [], 0
    for size in _GROUPS:
        if start >= len(digits):
            break
        groups.append(digits[start:start + size])
        start += size
    return "-".join(groups)


def resolve(hall: Hall, domain: str, kind: IdKind, text: str, *, must_exist: bool = True) -> UUID:
    """The one id of `kind` in `domain` that `text` names.

    With `must_exist=False` a whole id that names nothing is passed on as it
    is, for use cases that record why such an id is refused.
    """
    prefix = canonical_prefix(text)
    whole = len(prefix) == 36
    name = domain_name(domain)
    if not hall.streams.exists(name):
        if whole:
            return UUID(prefix)  # the use case refuses the unknown domain, and records it
        raise UnknownDomainError(name)
    tables = tables_for(name)
    with hall.store.read() as conn:
        found = _matches(conn, kind.table(tables), prefix)
        if len(found) == 1:
            return UUID(found[0])
        if found:
            shown = ", ".join(found[:SHOWN]) + (", ..." if len(found) > SHOWN else "")
            raise AmbiguousIdError(
                f"{kind.value} id {text} is ambiguous in {name}: it begins {shown}; give more characters")
        if whole and not must_exist:
            return UUID(prefix)
        hint = _other_kind(conn, tables, kind, prefix)
    raise NotFoundError(kind.value, text, name, hint=f"it is {_article(hint)} {hint}" if hint else "")


def _matches(conn: Connection, table: Table, prefix: str) -> list[str]:
    column = table.c.id
    condition = column == prefix if len(prefix) == 36 else column.startswith(prefix)
    rows = conn.execute(select(column).where(condition).order_by(column).limit(SHOWN + 1))
    return [str(row[0]) for row in rows]


def _other_kind(conn: Connection, tables: DomainTables, kind: IdKind, prefix: str) -> str:
    for other in IdKind:
        if other is not kind and _matches(conn, other.table(tables), prefix):
            return other.value
    return ""


def _article(noun: str) -> str:
    return "an" if noun[:1] in "aeiou" else "a"


def session_closed(hall: Hall, domain: str, session_id: UUID) -> bool:
    """Whether the session was wrapped up (and so closed) already."""
    sessions = tables_for(domain_name(domain)).sessions
    with hall.store.read() as conn:
        row = conn.execute(select(sessions.c.closed).where(sessions.c.id == str(session_id))).first()
    return bool(row is not None and row[0])
