"""Rebuilt projections equal the incrementally built ones, for any command sequence."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any
from uuid import UUID

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import select, text

from memhall.domains.entry import draft
from memhall.domains.errors import MemhallError
from memhall.domains.values import Layer
from memhall.governance import promotions, sessions
from memhall.governance.hall import Hall
from memhall.governance.rebuild import rebuild
from memhall.governance.recompute import verify_read_models
from memhall.governance.store import Store
from memhall.governance.tables import tables_for
from memhall.policies.engine import PolicySet

POLICY = PolicySet.load(None)
WORDS = ["alpha", "beta", "gamma", "delta"]

SEATS = ["codex", "gemini", "claude"]

command = st.one_of(
    st.tuples(st.just("write"), st.sampled_from(["codex", "gemini", "maki"]),
              st.sampled_from(["L1", "L2"]), st.sampled_from(["episode", "state", "open-loop", "claim"]),
              st.lists(st.sampled_from(WORDS), min_size=1, max_size=3),
              st.lists(st.sampled_from(SEATS), max_size=2), st.lists(st.sampled_from(SEATS), max_size=2)),
    st.tuples(st.just("retire"), st.integers(0, 20)),
    st.tuples(st.just("close"), st.integers(0, 20)),
    st.tuples(st.just("wrap"), st.sampled_from(WORDS)),
    st.tuples(st.just("promote"), st.integers(0, 20)),
    st.tuples(st.just("nominate"), st.integers(0, 20)),
    st.tuples(st.just("refused"),),
    st.tuples(st.just("import"), st.lists(st.lists(st.sampled_from(WORDS), min_size=1, max_size=2),
                                          min_size=1, max_size=6)),
)


def apply(hall: Hall, ids: list[UUID], cmd: tuple[Any, ...]) -> None:
    name = cmd[0]
    pick = (lambda n: ids[n % len(ids)]) if ids else None
    if name == "write":
        _, actor, layer, kind, words, told, present = cmd
        ids.append(UUID(hall.write(actor, "company", draft(
            text=" ".join(words), layer=layer, kind=kind, addressees=told, participants=present)).entry_id))
    elif name == "wrap":
        sessions.wrap_up(hall, "codex", "company", f"wrapped {cmd[1]}", opens=[f"loop {cmd[1]}"])
    elif name == "import":
        results = hall.write_many("codex", "company", [draft(text=" ".join(w)) for w in cmd[1]])
        ids.extend(UUID(r.entry_id) for r in results if r.duplicate_of is None)
    elif name == "refused":
        hall.write("gemini", "company", draft(text="seat in the hall", layer="L2"))
    elif pick is None:
        return
    elif name == "retire":
        hall.retire("codex", "company", pick(cmd[1]), "obsolete")
    elif name == "close":
        hall.close_loop("codex", "company", pick(cmd[1]), "done")
    elif name == "promote":
        promotions.promote(hall, "codex", "company", pick(cmd[1]), useful=True, evidence=("e",),
                           not_temporary=True, safe=True)
    elif name == "nominate":
        promotions.nominate(hall, "claude", "company", pick(cmd[1]), Layer.L3, "stale fact")


def snapshot(hall: Hall) -> dict[str, list[tuple[Any, ...]]]:
    tables = tables_for("company")
    with hall.store.read() as conn:
        state = {t.name: sorted(tuple(map(str, r)) for r in conn.execute(select(t))) for t in tables.projections}
        state["search"] = sorted(tuple(r) for r in conn.execute(text(f"SELECT entry_id, body FROM {tables.search_name}")))
    return state


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(command, min_size=1, max_size=25))
def test_rebuilt_projections_equal_the_incremental_ones(commands: list[tuple[Any, ...]]) -> None:
    with tempfile.TemporaryDirectory() as folder:
        hall = Hall(Store(f"sqlite:///{Path(folder) / 'm.db'}"), POLICY)
        hall.create_domain("maki", "company")
        ids: list[UUID] = []
        for cmd in commands:
            try:
                apply(hall, ids, cmd)
            except MemhallError:
                pass  # refusals are part of the history too
        before = snapshot(hall)

        rebuild(hall, batch=7)  # a small batch, so replay crosses batch boundaries

        assert snapshot(hall) == before
        hall.store.dispose()


def test_a_rebuild_builds_every_index_again(hall: Hall) -> None:
    from sqlalchemy import inspect

    hall.write_many("codex", "company", [draft(text=f"note {i}") for i in range(20)])
    tables = tables_for("company")

    def indexes() -> set[tuple[str, str]]:
        found = inspect(hall.store.write_engine)
        return {(t.name, i["name"] or "") for t in tables.projections for i in found.get_indexes(t.name)}

    before = indexes()

    rebuild(hall, batch=7)

    assert indexes() == before
    assert len(before) >= len([i for t in tables.projections for i in t.indexes])


def stored_bytes(hall: Hall) -> dict[str, list[tuple[Any, ...]]]:
    """Every read-model row as the database driver returns it (no type coercion), in key
    order, with SQLite's rowid (the order rows were inserted in, which FTS ranking ties see)."""
    from memhall.governance.projection.schema import READ_MODELS, SEARCH
    from memhall.governance.store import raw

    sqlite = hall.store.dialect == "sqlite"
    dump: dict[str, list[tuple[Any, ...]]] = {}
    with hall.store.read() as conn:
        cursor = raw(conn).cursor()
        for spec in [*READ_MODELS, *([SEARCH] if sqlite else [])]:
            rowid = "rowid, " if sqlite else ""
            cursor.execute(f"SELECT {rowid}{', '.join(spec.names)} FROM mh_company_{spec.suffix} "
                           f"ORDER BY {spec.key}")
            dump[spec.suffix] = [tuple(r) for r in cursor.fetchall()]
    return dump


@pytest.mark.parametrize("beside", [False, True], ids=["inline", "sql-beside"])
def test_a_rebuild_stores_byte_for_byte_what_the_write_path_stored(
        hall: Hall, beside: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    from memhall.governance import pipelined

    if beside:  # the SQL of a large rebuild, run by a process beside it
        monkeypatch.setattr(pipelined, "BESIDE_MIN", 0)

    ids: list[UUID] = []
    history: list[tuple[Any, ...]] = [
        ("write", "codex", "L1", "episode", ["alpha"], ["gemini"], ["claude", "gemini"]),
        ("write", "maki", "L2", "state", ["beta", "gamma"], [], []),
        ("import", [["delta"], ["alpha", "beta"], ["gamma"]]), ("wrap", "alpha"),
        ("write", "gemini", "L1", "open-loop", ["delta", "alpha"], ["codex"], []),
        ("retire", 1), ("close", 4), ("promote", 0), ("nominate", 2), ("refused",),
        ("write", "codex", "L1", "claim", ["beta"], ["codex"], ["codex"]), ("wrap", "beta"),
        ("import", [["alpha", "gamma"], ["delta"]]),
        # more rows than SQLite inserts with one statement (apply.ROWS_PER_INSERT), and a rest
        ("import", [[f"bulk{i}"] for i in range(70)]),
    ]
    for cmd in history:
        try:
            apply(hall, ids, cmd)
        except MemhallError:
            pass
    before = stored_bytes(hall)

    rebuild(hall, batch=4)

    assert stored_bytes(hall) == before
    assert sum(len(rows) for rows in before.values()) > 60
    assert len(before["entries"]) > 70
    rebuild(hall)  # one batch: its rows many to a statement
    assert stored_bytes(hall) == before
    assert all(report.ok for report in verify_read_models(hall.streams))


def test_a_rebuild_recreates_each_read_model_as_a_new_store_has_it(hall: Hall) -> None:
    from sqlalchemy import inspect

    hall.write_many("codex", "company", [draft(text=f"note {i}") for i in range(5)])
    tables = tables_for("company")

    def shapes() -> dict[str, Any]:
        found = inspect(hall.store.write_engine)
        return {name: ([(c["name"], str(c["type"]), c["nullable"]) for c in found.get_columns(name)],
                       found.get_pk_constraint(name)["constrained_columns"],
                       sorted((i["name"] or "", tuple(map(str, i["column_names"])), bool(i["unique"]))
                              for i in found.get_indexes(name)))
                for name in [*(t.name for t in tables.projections), tables.head_name]}

    before = shapes()

    rebuild(hall)

    assert shapes() == before


def test_a_store_made_before_a_read_model_was_retired_works_and_a_rebuild_drops_it(hall: Hall) -> None:
    hall.write("codex", "company", draft(text="billing runs on fridays"))
    with hall.store.write() as conn:  # the lived window of a store made before it was retired
        conn.execute(text("CREATE TABLE mh_company_lived (id TEXT PRIMARY KEY, recent TEXT, position BIGINT)"))
        conn.execute(text("INSERT INTO mh_company_lived VALUES ('domain', '[]', 1)"))
    hall.write("codex", "company", draft(text="the mailer sends reminders"))  # such a store still takes writes
    assert all(report.ok for report in verify_read_models(hall.streams, ["company"]))

    rebuild(hall, ["company"])

    with hall.store.read() as conn:
        left = conn.execute(text(
            "SELECT count(*) FROM sqlite_master WHERE name = 'mh_company_lived'"
            if hall.store.dialect == "sqlite" else
            "SELECT count(*) FROM pg_tables WHERE tablename = 'mh_company_lived' AND schemaname = current_schema()"
        )).scalar_one()
    assert left == 0
