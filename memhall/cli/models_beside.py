"""`audit verify`'s read-model check in a process beside the chain walk: whether the log is
long enough to pay for a second process, and starting it as early as can be."""

from __future__ import annotations

from typing import TYPE_CHECKING

from memhall.cli.beside import Beside
from memhall.governance.recompute import Half, Source, beside_plan, models_at, source_of

if TYPE_CHECKING:
    from memhall.governance.store import Store

#: from this many events (every stream together), the read models are checked beside the chains
BESIDE_MIN = 20_000


def models_beside(store: Store) -> Beside[list[Half]] | None:
    """The read-model check started in a second process, if the log is long enough to pay
    for it (`beside_plan`); else None. The child connects with the driver alone (`models_at`)."""
    from memhall.audit.verify import snapshot
    from memhall.governance.store import raw

    with snapshot(store.read_engine) as conn:
        plan = beside_plan(raw(conn), store.dialect)
    return _beside(source_of(store.url), plan)


def _beside(source: Source, plan: tuple[list[str], int] | None) -> Beside[list[Half]] | None:
    if plan is None or plan[1] < BESIDE_MIN:
        return None
    return Beside(f"{models_at.__module__}:{models_at.__name__}", source, plan[0])


_PSYCOPG = "postgresql+psycopg://"


def beside_at_once(url: str) -> tuple[bool, Beside[list[Half]] | None]:
    """On PostgreSQL, `models_beside` before SQLAlchemy is imported here: the plan read with the
    driver alone, which takes the URL without its `+psycopg` (libpq reads the same host, user,
    database and options from it). (decided, the process beside); not decided on SQLite, or
    where the driver alone cannot tell (the store is then opened as usual, and says why)."""
    if not url.startswith(_PSYCOPG):
        return False, None
    import psycopg

    source = Source("postgresql", ("postgresql://" + url.removeprefix(_PSYCOPG),), {})
    try:
        with psycopg.connect(*source.args) as db:
            plan = beside_plan(db, "postgresql")
    except psycopg.Error:
        return False, None
    return (False, None) if plan is None else (True, _beside(source, plan))
