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
when it began), read in one round trip (`Store.peek`).
"""

from __future__ import annotations

import json
import os
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memhall.domains.errors import DomainRebuildingError

if TYPE_CHECKING:  # the fast handoff looks at the mark with the stdlib alone (`flagged`)
    from memhall.governance.store import Store

KEY = "rebuilding"
#: `tables.settings_table`'s name
SETTINGS = "mh_settings"


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
        since = store.peek(lambda db: began(db, domain))
    if since is not None:
        raise DomainRebuildingError(domain, since)


def flag_of(store_path: Path, domain: str) -> Path:
    return Path(f"{store_path}-rebuilding.{domain}")


def flagged(store_path: Path, domain: str) -> str | None:
    """When the rebuild of `domain` in this SQLite file began, if one is under way."""
    flag = f"{store_path}-rebuilding.{domain}"  # flag_of's, without pathlib's cost (it is asked each command)
    if not os.path.exists(flag):
        return None
    try:
        with open(flag, encoding="utf-8") as text:
            return text.read().strip() or "an unknown time"
    except FileNotFoundError:  # cleared meanwhile
        return None


def began(db: Any, domain: str) -> str | None:
    """When the rebuild of `domain` began, if one is under way (PostgreSQL; `db`: a DBAPI
    connection)."""
    cursor = db.cursor()
    try:
        cursor.execute(f"SELECT value FROM {SETTINGS} WHERE key = %s", [KEY])
        row = cursor.fetchone()
    finally:
        cursor.close()
    if row is None:
        return None
    since = json.loads(row[0]).get(domain)
    return str(since) if since is not None else None


def _change(store: Store, domain: str, since: str | None) -> None:
    from sqlalchemy import delete, insert, select

    from memhall.governance.tables import settings_table

    with store.write() as conn:
        row = conn.execute(select(settings_table.c.value).where(settings_table.c.key == KEY)).first()
        domains: dict[str, str] = json.loads(row[0]) if row is not None else {}
        if since is None:
            domains.pop(domain, None)
        else:
            domains[domain] = since
        conn.execute(delete(settings_table).where(settings_table.c.key == KEY))
        if domains:
            conn.execute(insert(settings_table).values(key=KEY, value=json.dumps(domains, sort_keys=True)))
