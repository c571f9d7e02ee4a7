"""Verifying the chains of a store nobody tampered with (SQLite and PostgreSQL)."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import select

from memhall.audit.chain import GENESIS
from memhall.audit.verify import Problem
from memhall.domains.entry import draft
from memhall.domains.errors import PolicyDeniedError, UnknownDomainError
from memhall.governance.hall import Hall
from memhall.governance.rebuild import rebuild
from memhall.governance.tables import SYSTEM, tables_for
from tests.audit.conftest import raw, verify


def chain_rows(hall: Hall, domain: str) -> list[tuple[int, str]]:
    chain = tables_for(domain).chain
    with hall.store.read() as conn:
        return [(int(r[0]), str(r[1])) for r in conn.execute(select(chain).order_by(chain.c.position))]


def test_an_untouched_store_verifies_to_the_head_it_stored(hall: Hall, store_url: str) -> None:
    hall.write("codex", "company", draft(text="billing runs nightly", layer="L2"))
    hall.write("codex", "family", draft(text="dinner is at seven", layer="L2"))

    reports = verify(store_url)

    assert all(r.ok for r in reports.values())
    assert set(reports) == {"company", "family", SYSTEM}
    assert (reports["company"].position, reports["company"].head) == chain_rows(hall, "company")[-1]
    assert reports["company"].events == 3  # opened, its charter, one write


def test_refusals_are_links_in_the_chain(hall: Hall, store_url: str) -> None:
    with pytest.raises(PolicyDeniedError):
        hall.write("gemini", "company", draft(text="a seat writing L2", layer="L2"))
    with pytest.raises(UnknownDomainError):
        hall.write("codex", "atlantis", draft(text="nowhere", layer="L2"))

    reports = verify(store_url)

    assert reports["company"].ok and reports["company"].events == 3
    assert reports[SYSTEM].ok and reports[SYSTEM].events == 2  # its charter, the refusal
    assert [p for p, _ in chain_rows(hall, "company")] == [1, 2, 3]


def test_rebuilding_the_projections_leaves_the_chain_as_it_was(hall: Hall, store_url: str) -> None:
    hall.write("codex", "company", draft(text="billing runs nightly", layer="L2"))
    with pytest.raises(PolicyDeniedError):
        hall.write("gemini", "company", draft(text="a seat writing L2", layer="L2"))
    before = {d: chain_rows(hall, d) for d in ("company", "family", SYSTEM)}

    rebuild(hall)

    assert {d: chain_rows(hall, d) for d in ("company", "family", SYSTEM)} == before
    assert all(r.ok for r in verify(store_url).values())


def test_an_empty_stream_verifies_at_the_genesis_head(store_url: str) -> None:
    from memhall.governance.store import Store
    from memhall.governance.streams import Streams

    store = Store(store_url)
    Streams(store).ensure_registry()
    store.dispose()

    report = verify(store_url)[SYSTEM]

    assert report.ok
    assert (report.events, report.position, report.head) == (0, 0, GENESIS)


def test_small_batches_give_the_same_verdict_as_one_large_one(db: Path) -> None:
    whole = verify(db)

    assert verify(db, batch=2) == whole
    assert verify(db, batch=1) == whole


def test_a_break_across_a_batch_boundary_is_found_at_its_position(db: Path) -> None:
    with raw(db) as conn:
        conn.execute("DELETE FROM mh_company_chain WHERE position = 5")

    broken = verify(db, batch=2)["company"].broken

    assert broken is not None
    assert (broken.position, broken.problem) == (5, Problem.UNCHAINED)
