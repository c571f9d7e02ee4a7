"""`check`: the shipped cases pass and cover every rule; failures and leaks are reported."""

from __future__ import annotations

from pathlib import Path

from memhall.policies.engine import PolicySet
from memhall.policies.model import Action, PolicyRequest, ResourceType
from memhall.policies.review import check, explain

FAILING_CASE = """
- name: a seat writes the hall (wrong on purpose)
  principal: gemini
  action: write_l2
  resource: {domain: company, target_layer: L2}
  expect: allow
"""


def test_the_default_policy_passes_its_own_check() -> None:
    report = check(None)

    assert report.ok, report.text()
    assert report.cases_run >= 40


def test_every_default_rule_is_named_by_some_case() -> None:
    report = check(None)

    assert report.rules
    assert report.uncovered == []


def test_a_failing_case_is_reported_with_file_and_line(policy_dir: Path) -> None:
    cases = policy_dir / "tests" / "extra.yaml"
    cases.write_text(FAILING_CASE)

    report = check(policy_dir)

    assert not report.ok
    [failure] = report.failures
    assert failure.where == f"{cases}:2"
    assert failure.expected == "allow"
    assert failure.got == "deny"


def test_a_case_naming_an_unknown_rule_is_an_error(policy_dir: Path) -> None:
    (policy_dir / "tests" / "extra.yaml").write_text(FAILING_CASE + "  rule: no-such-rule\n")

    report = check(policy_dir)

    assert not report.ok
    assert "no rule has the id 'no-such-rule'" in report.errors[0]


def test_a_broken_policy_fails_the_check_instead_of_raising(policy_dir: Path) -> None:
    (policy_dir / "seat.cedar").write_text("permit (principal, action, resource")

    report = check(policy_dir)

    assert not report.ok
    assert report.errors[0].startswith(f"{policy_dir / 'seat.cedar'}:1:")


def test_an_unconditional_permit_is_reported_as_a_leak(policy_dir: Path) -> None:
    (policy_dir / "open.cedar").write_text('@id("everyone-reads")\npermit (principal, action == Action::"read", resource);\n')

    report = check(policy_dir)

    assert not report.ok
    assert any("everyone-reads" in leak for leak in report.leaks)
    assert "everyone-reads" in report.uncovered


def test_explain_names_the_rule_and_the_facts(defaults: PolicySet) -> None:
    request = PolicyRequest(
        principal="maki", action=Action.RATIFY, domain="company", resource_type=ResourceType.PROMOTION,
        layer="L3", target_layer="L4", nominated_by="claude", reminder_sessions=1, dissent_recorded=True,
    )

    explanation = explain(defaults, request)

    assert not explanation.decision.allowed
    assert [rule.id for rule in explanation.rules] == ["canon-needs-three-reminder-sessions"]
    guards = Path(explanation.rules[0].where.rsplit(":", 1)[0])
    line = int(explanation.rules[0].where.rsplit(":", 1)[1])
    assert guards.name == "guards.cedar"
    assert '@id("canon-needs-three-reminder-sessions")' in guards.read_text().splitlines()[line - 1]
    assert explanation.facts["reminder_sessions"] == 1
    assert "has_evidence" not in explanation.facts
    assert explanation.roles == ["ratify_owner"]
    assert "1 of 3 reminders" in explanation.text()
