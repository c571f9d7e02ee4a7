"""A domain whose read models are being rebuilt serves nothing from them and takes no writes.

`rebuild` empties a domain's read models and fills them again from its log, batch by batch,
each batch committed: until it ends they hold only the events replayed so far, so a handoff
would hand out an older state as the latest, or none, with nothing to say so. So the rebuild
marks the domain first (the store's setting `rebuilding`: each domain being rebuilt, with
when it began) and clears the mark once its read models are whole again, indexes and
statistics included; meanwhile every hall command on the domain is refused, saying since
when (`DomainRebuildingError`), and the fast handoff declines. A rebuild that fails leaves
the mark: the domain stays closed until a rebuild succeeds.
"""

from __future__ import annotations

import json
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any

from memhall.domains.errors import DomainRebuildingError

if TYPE_CHECKING:  # the fast handoff reads the mark with stdlib sqlite3 alone (`began`)
    from memhall.governance.store import Store

KEY = "rebuilding"
#: `tables.settings_table`'s name
SETTINGS = "mh_settings"


def mark(store: Store, domain: str) -> None:
    """Close `domain` until `clear`: committed before its read models are emptied."""
    _change(store, domain, datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M:%SZ"))


def clear(store: Store, domain: str) -> None:
    _change(store, domain, None)


def check(store: Store, domain: str) -> None:
    """`DomainRebuildingError` while `domain` is being rebuilt."""
    from memhall.governance.store import raw

    with store.read() as conn:
        since = began(raw(conn), domain)
    if since is not None:
        raise DomainRebuildingError(domain, since)


def began(db: Any, domain: str) -> str | None:
    """When the rebuild of `domain` began, if one is under way (`db`: a DBAPI connection)."""
    marks = "?" if type(db).__module__.startswith("sqlite3") else "%s"
    cursor = db.cursor()
    try:
        cursor.execute(f"SELECT value FROM {SETTINGS} WHERE key = {marks}", [KEY])
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
