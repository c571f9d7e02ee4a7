"""A store's own settings: where its audit checkpoints live, and whether wrap-up takes one.

Kept in the store rather than found from the working directory, so `audit
verify` holds a store to its own checkpoint file wherever it runs.
"""

from __future__ import annotations

from pathlib import Path

from sqlalchemy import delete, insert, inspect, select

from memhall.governance.store import Store
from memhall.governance.tables import settings_table

CHECKPOINTS = "checkpoints"
ON_WRAP_UP = "checkpoint_on_wrap_up"


def setting(store: Store, key: str) -> str | None:
    if not inspect(store.read_engine).has_table(settings_table.name):
        return None
    with store.read() as conn:
        row = conn.execute(select(settings_table.c.value).where(settings_table.c.key == key)).first()
    return None if row is None else str(row[0])


def set_setting(store: Store, key: str, value: str) -> None:
    settings_table.create(store.write_engine, checkfirst=True)
    with store.write() as conn:
        conn.execute(delete(settings_table).where(settings_table.c.key == key))
        conn.execute(insert(settings_table).values(key=key, value=value))


def checkpoint_file(store: Store) -> Path | None:
    """The checkpoint file this store was told to keep (`init`, `audit checkpoint --file`)."""
    value = setting(store, CHECKPOINTS)
    return Path(value) if value else None


def remember_checkpoints(store: Store, path: Path, *, on_wrap_up: bool | None = None) -> None:
    set_setting(store, CHECKPOINTS, str(path.expanduser().resolve()))
    if on_wrap_up is not None:
        set_setting(store, ON_WRAP_UP, "yes" if on_wrap_up else "no")


def checkpoints_on_wrap_up(store: Store) -> bool:
    return setting(store, ON_WRAP_UP) == "yes"


def in_git_work_tree(folder: Path) -> bool:
    here = folder.resolve()
    return any((parent / ".git").exists() for parent in (here, *here.parents))
