"""Reminders count only from real sessions; each council member records its own dissent."""

from __future__ import annotations

from pathlib import Path
from uuid import UUID

import pytest

from memhall.domains.entry import draft
from memhall.domains.errors import InvalidValueError, PolicyDeniedError, RefusedError
from memhall.domains.promotion import COUNCIL_RULE, REMINDER_SESSION_RULE
from memhall.domains.values import Layer
from memhall.governance import charters, history, promotions, sessions
from memhall.governance.hall import Hall
from memhall.policies.engine import PolicySet
from memhall.policies.files import init_policy_dir


def canon_nomination(hall: Hall) -> UUID:
    entry = UUID(hall.write("codex", "company", draft(text="the build cache lives on the NAS",
                                                       kind="claim", layer="L2")).entry_id)
    stale = promotions.nominate(hall, "claude", "company", entry, Layer.L3, "unchanged for months")
    promotions.ratify(hall, "maki", "company", stale.id)
    return promotions.nominate(hall, "claude", "company", entry, Layer.L4, "bind").id


def session(hall: Hall, actor: str = "codex", domain: str = "company") -> str:
    opened = sessions.handoff(hall, actor, domain).session_id
    assert opened is not None
    return opened


def last(hall: Hall) -> tuple[str, str]:
    event = history.log(hall, "maki", "company", limit=1)[0]
    return event.topic, event.rule


def policy_with(tmp_path: Path, name: str, text: str) -> PolicySet:
    folder = tmp_path / "policy"
    init_policy_dir(folder)
    (folder / name).write_text(text)
    return PolicySet.load(folder)


@pytest.mark.parametrize("made_up", ["made-up-a", "00000000-0000-4000-8000-000000000000"])
def test_a_reminder_from_a_made_up_session_is_refused_and_recorded(hall: Hall, made_up: str) -> None:
    canon = canon_nomination(hall)

    with pytest.raises(RefusedError, match="no session") as refused:
        promotions.remind(hall, "codex", "company", canon, made_up)

    assert refused.value.exit_code == 3 and refused.value.rule == REMINDER_SESSION_RULE
    assert last(hall) == ("memhall.Refusal.Recorded", REMINDER_SESSION_RULE)


def test_a_reminder_from_another_principals_session_is_refused(hall: Hall) -> None:
    canon = canon_nomination(hall)
    claudes = session(hall, "claude")

    with pytest.raises(RefusedError, match="opened by claude, not codex"):
        promotions.remind(hall, "codex", "company", canon, claudes)


def test_a_reminder_from_a_closed_session_is_refused(hall: Hall) -> None:
    canon = canon_nomination(hall)
    closed = session(hall)
    sessions.wrap_up(hall, "codex", "company", "done for today", session_id=closed)

    with pytest.raises(RefusedError, match="is closed"):
        promotions.remind(hall, "codex", "company", canon, closed)


def test_a_reminder_from_a_session_opened_before_the_nomination_is_refused(hall: Hall) -> None:
    earlier = session(hall)
    canon = canon_nomination(hall)

    with pytest.raises(RefusedError, match="before the nomination"):
        promotions.remind(hall, "codex", "company", canon, earlier)


def test_a_reminder_from_another_domains_session_is_refused(hall: Hall) -> None:
    canon = canon_nomination(hall)
    family = session(hall, domain="family")

    with pytest.raises(RefusedError, match="no session"):
        promotions.remind(hall, "codex", "company", canon, family)


def test_a_reminder_without_a_session_says_how_to_get_one(hall: Hall) -> None:
    canon = canon_nomination(hall)

    with pytest.raises(InvalidValueError, match="memhall handoff"):
        promotions.remind(hall, "codex", "company", canon, None)


def test_the_policy_may_ask_counted_sessions_to_be_hours_apart(hall: Hall, tmp_path: Path) -> None:
    spaced = Hall(hall.store, policy_with(tmp_path, "promotion.yaml",
                                          "reminders:\n  min_hours_between_sessions: 24\n"))
    charters.adopt(spaced, "maki", "company")
    canon = canon_nomination(spaced)

    opened = []
    for _ in range(3):
        opened.append(session(spaced))
        promotions.remind(spaced, "codex", "company", canon, opened[-1])
        sessions.wrap_up(spaced, "codex", "company", "done for today", session_id=opened[-1])

    assert len(set(opened)) == 3

    (row,) = promotions.promotions(spaced, "maki", "company")
    assert row.reminders == 3 and len(row.reminder_sessions) == 1


def test_each_member_records_its_own_position_and_may_revise_it(hall: Hall) -> None:
    canon = canon_nomination(hall)

    promotions.dissent(hall, "gemini", "company", canon, "agree", "matches the runbook")
    promotions.dissent(hall, "gemini", "company", canon, "disagree", "the NAS moves next month")
    promotions.dissent(hall, "claude", "company", canon, "abstain", "nominated it")

    (row,) = promotions.promotions(hall, "maki", "company")
    assert row.dissent == [
        {"member": "claude", "position": "abstain", "reason": "nominated it"},
        {"member": "gemini", "position": "disagree", "reason": "the NAS moves next month"},
    ]
    assert row.missing == ["codex"]
    topics = [e.topic for e in history.log(hall, "maki", "company", limit=3)]
    assert topics == ["memhall.Promotion.PositionRecorded"] * 3
    with pytest.raises(PolicyDeniedError, match="no dissent recorded"):
        promotions.ratify(hall, "maki", "company", canon)


def test_a_position_cannot_be_revised_after_the_decision(hall: Hall) -> None:
    canon = canon_nomination(hall)
    for member in ("claude", "codex", "gemini"):
        promotions.dissent(hall, member, "company", canon, "agree", "fine")
    for _ in range(3):
        opened = session(hall)
        promotions.remind(hall, "codex", "company", canon, opened)
        sessions.wrap_up(hall, "codex", "company", "done for today", session_id=opened)
    promotions.ratify(hall, "maki", "company", canon)

    with pytest.raises(RefusedError, match="is ratified"):
        promotions.dissent(hall, "gemini", "company", canon, "disagree", "changed my mind")


def test_the_council_is_the_one_named_when_the_nomination_was_made(hall: Hall, tmp_path: Path) -> None:
    canon = canon_nomination(hall)
    roles = (Path(__file__).resolve().parents[2] / "memhall/policies/defaults/roles.yaml").read_text()
    grown = roles.replace("  gemini: agent\n", "  gemini: agent\n  grok: agent\n").replace(
        "    seat: [gemini]\n", "    seat: [gemini, grok]\n")
    later = Hall(hall.store, policy_with(tmp_path, "roles.yaml", grown))
    charters.adopt(later, "maki", "company")

    with pytest.raises(RefusedError, match="not on the council") as refused:
        promotions.dissent(later, "grok", "company", canon, "agree", "late joiner")

    assert refused.value.rule == COUNCIL_RULE
