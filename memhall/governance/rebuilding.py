"""A domain whose read models are being rebuilt serves nothing from them and takes no writes.

`rebuild` empties a domain's read models and fills them again from its log, batch by batch,
each batch committed: until it ends they hold only the events replayed so far, so a handoff
would hand out an older state as the latest, or none, with nothing to say so. So the rebuild
marks the domain first and clears the mark once its read models are whole again, indexes and
statistics included; meanwhile every hall command on the domain is refused, saying since
when (`DomainRebuildingError`), and the fast handoff declines. A rebuild that fails leaves
the mark: the domain stays closed until a rebuild succeeds.

The mark is looked at before every command, so it is cheap to look at: on SQLite a file
beside the store (`STORE-rebuilding.DOMAIN`, holding when the rebuild began: one `stat`
when there is none, where a query on a second connection cost ~40 us a write); on
PostgreSQL a row of the store's settings (`rebuilding`: each domain being rebuilt, with
when it began), read in one round trip (`Store.autocommit`).
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memhall.domains.errors import DomainRebuildingError, RebuildRunningError

if TYPE_CHECKING:  # the fast handoff looks at the mark with the stdlib alone (`flagged`)
    from memhall.governance.store import Store

KEY = "rebuilding"
#: `tables.settings_table`'s name
SETTINGS = "mh_settings"


#: PostgreSQL: the advisory lock of a schema's rebuild (the schema's name is hashed with it)
_PG_LOCK = "hashtext(current_schema() || ':memhall-rebuild')"


@contextmanager
def exclusive(store: Store) -> Iterator[None]:
    """One rebuild of a store at a time (`RebuildRunningError` for a second): held for the
    whole rebuild, and gone with its process if it dies (a lock on a file beside a SQLite
    store, an advisory lock of the schema on PostgreSQL), while a domain's mark stays."""
    if store.dialect != "sqlite":
        with _advisory(store):
            yield
        return
    if store.sqlite_file is None or os.name != "posix":
        yield  # an in-memory store has no other process; elsewhere, one rebuild at a time is the user's
        return
    import fcntl

    with open(f"{store.sqlite_file}-rebuild.lock", "a+b") as held:
        try:
            fcntl.flock(held.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise RebuildRunningError() from None
        yield  # released as the file closes


@contextmanager
def _advisory(store: Store) -> Iterator[None]:
    with store.autocommit() as db:
        with db.cursor() as cursor:
            cursor.execute(f"SELECT pg_try_advisory_lock({_PG_LOCK})")
            if not cursor.fetchone()[0]:
                raise RebuildRunningError()
        try:
            yield
        finally:
            with db.cursor() as cursor:
                cursor.execute(f"SELECT pg_advisory_unlock({_PG_LOCK})")


def mark(store: Store, domain: str) -> None:
    """Close `domain` until `clear`: made before its read models are emptied."""
    since = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M:%SZ")
    path = store.sqlite_file
    if store.dialect != "sqlite":
        _change(store, domain, since)
    if path is None:
        return  # PostgreSQL's row is made; an in-memory SQLite store has no other reader
    flag = flag_of(path, domain)
    flag.write_text(since, encoding="utf-8")
    with open(flag, "rb") as written:  # on disk before the read models are emptied
        os.fsync(written.fileno())


def clear(store: Store, domain: str) -> None:
    path = store.sqlite_file
    if store.dialect != "sqlite":
        _change(store, domain, None)
    elif path is not None:
        flag_of(path, domain).unlink(missing_ok=True)


def check(store: Store, domain: str) -> None:
    """`DomainRebuildingError` while `domain` is being rebuilt."""
    if store.dialect == "sqlite":
        since = flagged(store.sqlite_file, domain) if store.sqlite_file is not None else None
    else:
        with store.autocommit() as db:
            since = began(db, domain)
    if since is not None:
        raise DomainRebuildingError(domain, since)


def flag_of(store_path: Path, domain: str) -> Path:
    return Path(_flag(store_path, domain))


def _flag(store_path: Path, domain: str) -> str:
    return f"{store_path}-rebuilding.{domain}"


def flagged(store_path: Path, domain: str) -> str | None:
    """When the rebuild of `domain` in this SQLite file began, if one is under way."""
    flag = _flag(store_path, domain)  # a str: pathlib's cost, on every command, was not worth it
    if not os.path.exists(flag):
        return None
    try:
        with open(flag, encoding="utf-8") as text:
            return text.read().strip() or "an unknown time"
    except FileNotFoundError:  # cleared meanwhile
        return None


#: PostgreSQL: the query of the mark, with its parameters (asked alone by `began`, or in a
#: write's round trip under its domain's lock: `DomainStream.locked`)
QUERY: tuple[str, list[str]] = (f"SELECT value FROM {SETTINGS} WHERE key = %s", [KEY])


def began(db: Any, domain: str) -> str | None:
    """When the rebuild of `domain` began, if one is under way (PostgreSQL; `db`: a DBAPI
    connection)."""
    cursor = db.cursor()
    try:
        cursor.execute(*QUERY)
        rows = cursor.fetchall()
    finally:
        cursor.close()
    return since_in(rows, domain)


def since_in(rows: list[tuple[Any, ...]], domain: str) -> str | None:
    """When the rebuild of `domain` began, from the rows of `QUERY` (None: not being rebuilt)."""
    if not rows:
        return None
    marks = _marks(rows[0][0])
    if marks is None:  # edited: every domain stays closed until a rebuild writes it again
        return UNREADABLE
    since = marks.get(domain)
    return str(since) if since is not None else None


#: when a rebuild began, as told by a mark that is not one `mark` wrote
UNREADABLE = "a time its mark no longer says: the mark was edited"


def _marks(value: Any) -> dict[str, Any] | None:
    """The domains a mark holds, with when their rebuild began; None if it is not a mark."""
    try:
        marks = json.loads(value)
    except (TypeError, ValueError):
        return None
    return marks if isinstance(marks, dict) else None


def _change(store: Store, domain: str, since: str | None) -> None:
    from sqlalchemy import delete, insert, select

    from memhall.governance.tables import settings_table

    with store.write() as conn:
        row = conn.execute(select(settings_table.c.value).where(settings_table.c.key == KEY)).first()
        domains: dict[str, str] = (_marks(row[0]) or {}) if row is not None else {}  # an edited mark is rewritten
        if since is None:
            domains.pop(domain, None)
        else:
            domains[domain] = since
        conn.execute(delete(settings_table).where(settings_table.c.key == KEY))
        if domains:
            conn.execute(insert(settings_table).values(key=KEY, value=json.dumps(domains, sort_keys=True)))
