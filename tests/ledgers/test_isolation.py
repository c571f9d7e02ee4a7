"""Isolation: who may materialize, for whom, and in which domain; every refusal audited."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import select

from memhall.domains.errors import PolicyDeniedError
from memhall.governance.hall import Hall
from memhall.governance.store import Store
from memhall.governance.tables import tables_for
from memhall.ledgers.materialize import materialize
from memhall.policies.engine import PolicySet, init_policy_dir
from tests.ledgers.conftest import Write

#: the default roles, plus grok: a seat of the family domain only
ROLES = """\
domains: [company, family]
principals: {maki: human, claude: agent, codex: agent, gemini: agent, grok: agent}
roles:
  company: {ratify_owner: [maki], system_chair: [claude], session_chair: [codex], seat: [gemini]}
  family: {ratify_owner: [maki], system_chair: [claude], session_chair: [codex], seat: [gemini, grok]}
"""


def policy_with_grok(target: Path) -> Path:
    init_policy_dir(target)
    (target / "roles.yaml").write_text(ROLES, encoding="utf-8")
    return target


def last_audit(hall: Hall, domain: str = "company") -> dict[str, object]:
    audit = tables_for(domain).audit
    with hall.store.read() as conn:
        return dict(conn.execute(select(audit).order_by(audit.c.position.desc()).limit(1)).one()._mapping)


def test_a_seat_cannot_materialize_memory_for_itself(hall: Hall, write: Write) -> None:
    write("billing runs nightly")

    with pytest.raises(PolicyDeniedError):
        materialize(hall, "gemini", "company", seat="gemini", task="billing")

    refusal = last_audit(hall)
    assert (refusal["decision"], refusal["actor"], refusal["action"]) == ("refused", "gemini", "materialize")


def test_the_system_chair_cannot_materialize_for_itself(hall: Hall) -> None:
    with pytest.raises(PolicyDeniedError, match="for itself"):
        materialize(hall, "claude", "company", seat="claude", task="billing")

    assert last_audit(hall)["decision"] == "refused"


def test_a_session_chair_cannot_materialize(hall: Hall) -> None:
    with pytest.raises(PolicyDeniedError):
        materialize(hall, "codex", "company", seat="gemini", task="billing")


def test_nothing_is_materialized_for_a_seat_of_another_domain(store: Store, tmp_path: Path) -> None:
    hall = Hall(store, PolicySet.load(policy_with_grok(tmp_path / "policy")))
    hall.create_domain("maki", "company")
    hall.create_domain("maki", "family")

    with pytest.raises(PolicyDeniedError, match="holds no role in company"):
        materialize(hall, "claude", "company", seat="grok", task="billing")

    refusal = last_audit(hall)
    assert (refusal["decision"], refusal["rule"]) == ("refused", "seat-belongs-to-the-domain")
    assert materialize(hall, "claude", "family", seat="grok", task="billing").ledgers.domain == "family"


def test_a_refused_materialization_records_nothing_but_the_refusal(hall: Hall) -> None:
    records = tables_for("company").materializations

    with pytest.raises(PolicyDeniedError):
        materialize(hall, "claude", "company", seat="claude", task="billing")

    with hall.store.read() as conn:
        assert conn.execute(select(records)).all() == []
