"""A small populated store for CLI tests: two domains, and an id of each kind."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from pathlib import Path
from uuid import UUID

from click.testing import CliRunner, Result

from memhall.cli.context import App
from memhall.cli.main import cli
from memhall.domains.entry import draft
from memhall.domains.values import Layer
from memhall.governance import promotions, requests, sessions
from memhall.governance.hall import Hall
from memhall.governance.store import Store
from memhall.policies.engine import PolicySet

#: environment variables that would leak the caller's identity into a test
CLEAN_ENV: dict[str, str | None] = {
    name: None for name in ("MEMHALL_AGENT", "MEMHALL_DOMAIN", "MEMHALL_SESSION", "MEMHALL_POLICY",
                            "MEMHALL_STORE")
}


@dataclass(frozen=True)
class World:
    url: str
    candidate: str  # an L1 entry by gemini
    claim: str  # an L2 entry by codex, nominated to L3
    promotion: str
    request: str
    session: str  # codex's open session

    @property
    def path(self) -> Path:
        return Path(self.url.removeprefix("sqlite:///"))

    def ids(self) -> list[str]:
        return [self.candidate, self.claim, self.promotion, self.request, self.session]


def build_world(url: str, policies: PolicySet) -> World:
    hall = Hall(Store(url), policies)
    try:
        hall.create_domain("maki", "company")
        hall.create_domain("maki", "family")
        candidate = hall.write("gemini", "company", draft(text="a seat's answer about billing")).entry_id
        claim = hall.write("codex", "company", draft(
            layer="L2", kind="claim", text="invoices go out on the 1st business day",
            provenance={"evidence_refs": ["ticket-17"]})).entry_id
        promotion = promotions.nominate(hall, "claude", "company", UUID(claim), Layer.L3, "settled").id
        request = requests.request_memory(hall, "gemini", "company", "gemini", "the billing day").id
        session = sessions.handoff(hall, "codex", "company").session_id
    finally:
        hall.store.dispose()
    assert session is not None
    return World(url=url, candidate=candidate, claim=claim, promotion=str(promotion), request=request,
                 session=session)


def invoke(policies: PolicySet, args: list[str], *, input: bytes | str | None = None,
           env: dict[str, str | None] | None = None) -> Result:
    """`memhall ARGS` in-process, with the policy set loaded once."""
    return CliRunner().invoke(cli, args, obj=App(gate_factory=lambda _dir: policies), input=input,
                              env={**CLEAN_ENV, **(env or {})})


def event_marks(path: Path) -> dict[str, int]:
    """Every events table of a SQLite store, with its highest position."""
    with sqlite3.connect(path) as db:
        names = [r[0] for r in db.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'mh_%_events'")]
        return {name: db.execute(f"SELECT coalesce(max(id), 0) FROM {name}").fetchone()[0] for name in names}


def topics_since(path: Path, marks: dict[str, int]) -> list[str]:
    """The topics of the events appended after `marks` were taken."""
    found: list[str] = []
    with sqlite3.connect(path) as db:
        for name in event_marks(path):
            found += [r[0] for r in db.execute(f"SELECT topic FROM {name} WHERE id > ?",
                                               (marks.get(name, 0),))]
    return found


def count_events(url: str) -> int:
    """Events in every stream of the store at `url` (SQLite or PostgreSQL)."""
    from sqlalchemy import create_engine, inspect, text

    engine = create_engine(url)
    try:
        with engine.connect() as conn:
            names = [n for n in inspect(conn).get_table_names() if n.startswith("mh_") and n.endswith("_events")]
            return sum(int(conn.execute(text(f"SELECT count(*) FROM {n}")).scalar_one()) for n in names)
    finally:
        engine.dispose()
