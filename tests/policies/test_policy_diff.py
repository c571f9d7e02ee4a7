"""`diff`: who gained or lost what; layout-only edits change nothing."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from memhall.policies.diff import NO_CHANGE, diff, diff_against_git
from memhall.policies.engine import init_policy_dir

SEAT_WRITES_L2 = """
@id("seat-writes-l2")
permit (principal, action == Action::"write_l2", resource)
when { principal.seat_in.contains(resource.domain) };
"""


@pytest.fixture
def base(tmp_path: Path) -> Path:
    target = tmp_path / "base"
    init_policy_dir(target)
    return target


@pytest.fixture
def head(base: Path, tmp_path: Path) -> Path:
    return Path(shutil.copytree(base, tmp_path / "head"))


def test_identical_directories_have_no_effective_change(base: Path, head: Path) -> None:
    result = diff(base, head)

    assert not result.changed
    assert NO_CHANGE in result.markdown()
    assert json.loads(result.to_json())["changed"] is False


def test_granting_a_seat_write_l2_shows_as_gained(base: Path, head: Path) -> None:
    (head / "seat.cedar").write_text((head / "seat.cedar").read_text() + SEAT_WRITES_L2)

    result = diff(base, head)

    assert {c.principal for c in result.changes} == {"gemini"}
    assert {(c.change, c.action) for c in result.changes} == {("gained", "write_l2")}
    # every kind but a decision, and a result only with evidence (the guards still forbid those)
    assert "- gained `write_l2` on new L1 entries (without evidence, no kind;" in result.markdown()
    assert result.rules_added == ["seat-writes-l2"]


def test_removing_a_permit_shows_as_lost(base: Path, head: Path) -> None:
    chair = head / "system_chair.cedar"
    text = chair.read_text()
    start = text.index('@id("system-chair-nominates-canon")')
    chair.write_text(text[:start] + text[text.index("@id(", start + 5):])

    result = diff(base, head)

    assert [(c.principal, c.change, c.action, c.resource) for c in result.changes] == [
        ("claude", "lost", "nominate", "L3 entries moving to L4"),
        ("claude", "lost", "nominate", "promotions L3 -> L4"),
    ]
    assert result.rules_removed == ["system-chair-nominates-canon"]


def test_loosening_a_guard_names_the_facts_under_which_it_changed(base: Path, head: Path) -> None:
    guards = head / "guards.cedar"
    guards.write_text(guards.read_text().replace("reminder_sessions < 3", "reminder_sessions < 2"))

    result = diff(base, head)

    [change] = result.changes
    assert change.text == (
        "gained `ratify` on promotions L3 -> L4 (2 reminder sessions, dissent recorded, "
        "nominated by another) in company, family"
    )


def test_reformatting_and_comments_are_no_effective_change(base: Path, head: Path) -> None:
    seat = head / "seat.cedar"
    text = "// reviewed again\n\n" + seat.read_text().replace("\n", "\n\n").replace("  ", "      ")
    seat.write_text(text)

    result = diff(base, head)

    assert not result.changed
    assert result.rules_changed == []
    assert NO_CHANGE in result.markdown()


def test_a_new_principal_in_roles_gains_its_role(base: Path, head: Path) -> None:
    roles = head / "roles.yaml"
    text = roles.read_text().replace("  gemini: agent\n", "  gemini: agent\n  grok: agent\n")
    roles.write_text(text.replace("seat: [gemini]", "seat: [gemini, grok]", 1))

    result = diff(base, head)

    assert {c.principal for c in result.changes} == {"grok"}
    assert all(c.change == "gained" and c.domains == ["company"] for c in result.changes)


def git(repo: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", *args],
        cwd=repo, check=True, capture_output=True,
    )


def test_diff_against_git_compares_with_the_committed_policy(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q")
    init_policy_dir(repo / "memhall-policy")
    git(repo, "add", ".")
    git(repo, "commit", "-q", "-m", "policy")
    seat = repo / "memhall-policy" / "seat.cedar"
    seat.write_text(seat.read_text() + SEAT_WRITES_L2)

    result = diff_against_git("HEAD", repo / "memhall-policy")

    assert {(c.principal, c.change, c.action) for c in result.changes} == {("gemini", "gained", "write_l2")}


def test_diff_against_a_revision_without_the_policy_gains_everything(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q")
    (repo / "README").write_text("hi\n")
    git(repo, "add", ".")
    git(repo, "commit", "-q", "-m", "first")
    init_policy_dir(repo / "memhall-policy")

    result = diff_against_git("HEAD", repo / "memhall-policy")

    assert result.changed
    assert all(c.change == "gained" for c in result.changes)
    assert {c.principal for c in result.changes} == {"maki", "claude", "codex", "gemini"}
