"""Broken policy files fail closed, with an error that names the file and line."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from memhall.domains.errors import InvalidValueError, PolicyConfigError
from memhall.policies.engine import PolicySet, init_policy_dir


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text, f"{old!r} not in {path.name}"
    path.write_text(text.replace(old, new, 1))


def line_of(path: Path, needle: str) -> int:
    for number, line in enumerate(path.read_text().splitlines(), start=1):
        if needle in line:
            return number
    raise AssertionError(f"{needle!r} not in {path}")


def load_error(directory: Path) -> str:
    with pytest.raises(PolicyConfigError) as caught:
        PolicySet.load(directory)
    return str(caught.value)


def seat_request_scope(directory: Path, scope: str) -> tuple[Path, str]:
    """seat.cedar's request rule with another scope; the file, and the load's error."""
    seat = directory / "seat.cedar"
    edit(seat, "permit (principal, action == Action::\"request\", resource)", f"permit ({scope})")
    return seat, load_error(directory)


def test_the_packaged_defaults_load() -> None:
    policy_set = PolicySet.load(None)

    assert len(policy_set.rules) >= 20


def test_a_syntax_error_names_the_file_and_line_of_the_broken_rule(policy_dir: Path) -> None:
    seat, message = seat_request_scope(policy_dir, "principal, action == , resource")

    line = line_of(seat, "action == , resource")
    assert re.match(rf"{re.escape(str(seat))}:\d+: cannot parse rule", message)
    assert line - 3 <= int(message.split(":")[1]) <= line


def test_a_template_rule_is_refused_naming_where_it_is(policy_dir: Path) -> None:
    """The rules are parsed together; one Cedar reads as a template is refused all the same."""
    seat, message = seat_request_scope(policy_dir, "principal == ?principal, action == Action::\"request\", resource")

    assert message.startswith(f"{seat}:")
    assert "templates (?principal, ?resource) are not supported" in message


def test_a_misspelled_attribute_names_the_file_and_line(policy_dir: Path) -> None:
    chair = policy_dir / "session_chair.cedar"
    edit(chair, "resource.layer == \"L1\" &&", "resource.layr == \"L1\" &&")

    message = load_error(policy_dir)

    assert message.startswith(f"{chair}:{line_of(chair, 'resource.layr')}: rule session-chair-promotes-l1-to-l2:")
    assert "layr" in message


def test_an_unknown_entity_type_is_refused(policy_dir: Path) -> None:
    seat, message = seat_request_scope(policy_dir, "principal is Robot, action == Action::\"request\", resource")

    assert message.startswith(f"{seat}:{line_of(seat, 'Robot')}:")
    assert "Robot" in message


def test_a_rule_without_an_id_is_refused(policy_dir: Path) -> None:
    seat = policy_dir / "seat.cedar"
    edit(seat, '@id("seat-requests-memory")\n', "")

    assert "needs an @id" in load_error(policy_dir)


def test_a_message_naming_an_unknown_fact_is_refused(policy_dir: Path) -> None:
    seat = policy_dir / "seat.cedar"
    edit(seat, "may issue a MEMORY REQUEST", "may issue {requests}")

    assert "unknown fact(s) requests" in load_error(policy_dir)


def test_a_broken_schema_is_refused(policy_dir: Path) -> None:
    schema = policy_dir / "schema.cedarschema"
    edit(schema, "reminder_sessions: Long,", "reminder_sessions: Lon,")

    message = load_error(policy_dir)

    assert message.startswith(f"{schema}:{line_of(schema, 'Lon,')}: invalid schema")


def test_a_schema_missing_a_fact_the_engine_sends_is_refused(policy_dir: Path) -> None:
    schema = policy_dir / "schema.cedarschema"
    edit(schema, "  author: String,\n", "")

    assert "does not describe the facts memhall sends" in load_error(policy_dir)


def test_an_unknown_role_in_roles_yaml_names_the_line(policy_dir: Path) -> None:
    roles = policy_dir / "roles.yaml"
    edit(roles, "    seat: [gemini]\n    backup_system_chair: [codex]\n  family",
         "    chairperson: [gemini]\n    backup_system_chair: [codex]\n  family")

    message = load_error(policy_dir)

    assert message.startswith(f"{roles}:{line_of(roles, 'chairperson')}: unknown key 'chairperson'")
    assert "session_chair" in message


def test_an_unknown_top_level_key_in_roles_yaml_names_the_line(policy_dir: Path) -> None:
    roles = policy_dir / "roles.yaml"
    roles.write_text(roles.read_text() + "owners: [maki]\n")

    message = load_error(policy_dir)

    assert message.startswith(f"{roles}:{line_of(roles, 'owners:')}: unknown key 'owners'")


def test_an_undeclared_principal_in_roles_yaml_names_the_line(policy_dir: Path) -> None:
    roles = policy_dir / "roles.yaml"
    edit(roles, "seat: [gemini]", "seat: [gemini, grok]")

    message = load_error(policy_dir)

    assert message == f"{roles}:{line_of(roles, 'grok')}: principal 'grok' is not declared under principals"


def test_an_undeclared_domain_in_roles_yaml_names_the_line(policy_dir: Path) -> None:
    roles = policy_dir / "roles.yaml"
    edit(roles, "  family:\n    ratify_owner", "  home:\n    ratify_owner")

    message = load_error(policy_dir)

    assert message == f"{roles}:{line_of(roles, 'home:')}: domain 'home' is not declared under domains"


def test_an_agent_cannot_be_bound_as_ratify_owner(policy_dir: Path) -> None:
    roles = policy_dir / "roles.yaml"
    edit(roles, "ratify_owner: [maki]", "ratify_owner: [maki, claude]")

    assert "ratify_owner must be a human; 'claude' is an agent" in load_error(policy_dir)


def test_invalid_yaml_names_the_line(policy_dir: Path) -> None:
    roles = policy_dir / "roles.yaml"
    edit(roles, "  gemini: agent", "  gemini: [agent")

    assert load_error(policy_dir).startswith(f"{roles}:")


def test_a_missing_policy_directory_fails_closed(tmp_path: Path) -> None:
    assert "no such policy directory" in load_error(tmp_path / "nowhere")


def test_init_copies_the_defaults_and_they_load(tmp_path: Path) -> None:
    created = init_policy_dir(tmp_path / "memhall-policy")

    names = {path.name for path in created}
    assert {"schema.cedarschema", "roles.yaml", "guards.cedar", "seat.cedar"} <= names
    assert any(path.parent.name == "tests" for path in created)
    assert len(PolicySet.load(tmp_path / "memhall-policy").rules) == len(PolicySet.load(None).rules)


def test_init_refuses_to_overwrite_a_policy_directory(policy_dir: Path) -> None:
    with pytest.raises(InvalidValueError):
        init_policy_dir(policy_dir)
