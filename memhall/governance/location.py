"""Which store a command uses, and whether one may be created there.

Stores appear only when asked for: `init` and `domain create` may create one;
every other command needs a store that exists. A SQLite file that holds
someone else's tables is refused before anything is written into it. The file
is inspected with the stdlib's `sqlite3`, read-only, before any engine exists.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import quote

from memhall.domains.errors import InvalidValueError, NoStoreError
from memhall.governance.project import STORE_DIR, STORE_FILE, find_project

if TYPE_CHECKING:
    from memhall.governance.store import Store

POSTGRES = "postgresql+psycopg://"
#: tables only a memhall store has (`mh_store` names it; stores made before
#: that table existed have `mh_domains`)
REGISTRY = ("mh_store", "mh_domains")
NO_STORE_HERE = "no memhall store here or above: run `memhall init`"
UNSUPPORTED = "unsupported store URL: use a SQLite path or postgresql+psycopg://"


def locate(store: str | None, *, cwd: Path | None = None, create: bool = False) -> str:
    """The SQLAlchemy URL of the store to use.

    `store` is --store / MEMHALL_STORE (a URL or a SQLite path); without it the
    store is the nearest project's `.memhall/memhall.db`. Without `create`, a
    store that does not exist is an error rather than a new empty store.
    """
    if store:
        url = _explicit(store)
    else:
        project = find_project(cwd)
        if project is None and not create:
            raise NoStoreError(NO_STORE_HERE)
        folder = project or (cwd or Path.cwd()).resolve()
        url = f"sqlite:///{folder / STORE_DIR / STORE_FILE}"
    if url.startswith("sqlite:///"):
        inspect_sqlite(Path(url.removeprefix("sqlite:///")), create=create, named=bool(store))
    return url


def _explicit(store: str) -> str:
    try:
        store.encode("utf-8")
    except UnicodeEncodeError:
        raise InvalidValueError("the store location is not valid UTF-8") from None
    if "\x00" in store:
        raise InvalidValueError("the store location contains a NUL character")
    if store.strip() in (":memory:", "sqlite://", "sqlite:///:memory:") or "mode=memory" in store:
        raise InvalidValueError(
            "an in-memory store vanishes when the command ends: give a SQLite file path")
    if "://" not in store:
        return f"sqlite:///{Path(store).expanduser().resolve()}"
    scheme = store.split("://", 1)[0].lower()
    if scheme in ("postgresql", "postgres"):  # the bare scheme would ask SQLAlchemy for psycopg2
        return POSTGRES + store.split("://", 1)[1]
    if scheme == "postgresql+psycopg":
        return store
    if scheme == "sqlite" and store.startswith("sqlite:///"):
        return store
    raise InvalidValueError(UNSUPPORTED)


def inspect_sqlite(path: Path, *, create: bool, named: bool = True) -> None:
    """Refuse a SQLite file that is not a memhall store, and (without `create`)
    one that does not exist yet. Nothing is written: the file is opened
    read-only, and first as immutable so that not even a WAL index appears
    beside a foreign database."""
    if path.is_dir():
        raise InvalidValueError(f"{path} is a folder, not a store file")
    if not path.exists():
        if create:
            return
        raise NoStoreError(f"no memhall store at {path}: run `memhall init`" if named else NO_STORE_HERE)
    try:
        tables = _tables(path, immutable=True)
    except sqlite3.DatabaseError:
        tables = set()  # a page caught mid-checkpoint: ask SQLite properly below
    if not tables:
        # the schema of a store being written may still sit in its WAL file
        try:
            tables = _tables(path, immutable=False)
        except sqlite3.DatabaseError as error:
            raise InvalidValueError(f"the store cannot be used: {error}") from None
    if not tables:
        if create:
            return
        raise NoStoreError(f"no memhall store at {path} (the file is empty): run `memhall init`")
    if not any(name in tables for name in REGISTRY):
        raise InvalidValueError(
            f"{path} is not a memhall store (it holds other tables): refusing to use it")


def _tables(path: Path, *, immutable: bool) -> set[str]:
    uri = f"file:{quote(str(path))}?mode=ro" + ("&immutable=1" if immutable else "")
    connection = sqlite3.connect(uri, uri=True, timeout=30)
    try:
        rows = connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'").fetchall()
    finally:
        connection.close()
    return {str(row[0]) for row in rows}


def require_registry(store: Store) -> None:
    """For a command that may not create a store: a PostgreSQL database with
    no memhall registry is no store yet (its other tables are not ours to judge)."""
    if store.dialect == "sqlite":
        return  # `inspect_sqlite` already looked
    from sqlalchemy import inspect

    names = set(inspect(store.read_engine).get_table_names())
    if not any(name in names for name in REGISTRY):
        raise NoStoreError(
            f"no memhall store at {store.display}: create one with `memhall domain create NAME`")
