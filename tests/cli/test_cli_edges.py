"""Bad input at the CLI's edge: usage errors that list what is allowed, ids of
another kind, text that cannot be stored, stores that cannot be used, and
errors as JSON under --json. Each is one line, and changes nothing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import Result

from memhall.policies.engine import PolicySet
from tests.cli.world import World, build_world, count_events, invoke


@pytest.fixture
def world(store_url: str, policies: PolicySet) -> World:
    return build_world(store_url, policies)


def run(world: World, policies: PolicySet, actor: str, *args: str,
        input: bytes | str | None = None) -> Result:
    return invoke(policies, ["--store", world.url, "--as", actor, "--domain", "company", *args], input=input)


@pytest.mark.parametrize(("args", "allowed"), [
    (["write", "--kind", "rumour", "x"], "'open-loop'"),
    (["write", "--layer", "L9", "x"], "'L4'"),
    (["write", "--source", "gossip", "x"], "'hearsay'"),
    (["nominate", "{claim}", "--to", "L2", "--reason", "r"], "'L3', 'L4'"),
    (["demote", "{claim}", "--to", "L4", "--reason", "r"], "'L2', 'L3'"),
    (["dissent", "{promotion}", "--position", "maybe", "--reason", "r"], "'abstain'"),
    (["audit", "log", "--layer", "L0"], "'L1'"),
    (["promote", "{candidate}", "--to", "L3", "--useful", "yes", "--not-temporary", "yes", "--safe", "yes"],
     "allowed: L2"),
])
def test_a_bad_value_for_an_enumerated_option_is_a_usage_error_listing_the_allowed_values(
        world: World, policies: PolicySet, args: list[str], allowed: str) -> None:
    before = count_events(world.url)

    done = run(world, policies, "claude", *(a.format(**world.__dict__) for a in args))

    assert done.exit_code == 2, done.output
    assert allowed in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
    assert count_events(world.url) == before


@pytest.mark.parametrize("args", [
    ["log", "--limit", "9223372036854775808"],
    ["log", "--before", "9223372036854775808"],
    ["handoff", "--limit", "0"],
    ["search", "billing", "--limit", "100000"],
    ["request", "--seat", "gemini", "--need", "x", "--expires-in", "nan"],
    ["request", "--seat", "gemini", "--need", "x", "--expires-in", "1e9"],
    ["materialize", "--seat", "gemini", "--task", "t", "--max-tokens", str(2**63)],
    ["materialize", "--seat", "gemini", "--task", "t", "--max-items", "11"],
    ["write", "--confidence", "101", "x"],
])
def test_a_number_out_of_range_is_a_usage_error(world: World, policies: PolicySet, args: list[str]) -> None:
    before = count_events(world.url)

    done = run(world, policies, "claude", *args)

    assert done.exit_code == 2, done.output
    assert "Invalid value for" in done.stderr
    assert count_events(world.url) == before


@pytest.mark.parametrize(("actor", "args", "expected"), [
    ("maki", ["ratify", "{claim}"], "no promotion {claim} in company (it is an entry)"),
    ("codex", ["remind", "{candidate}", "--session", "{session}"],
     "no promotion {candidate} in company (it is an entry)"),
    ("claude", ["answer", "{claim}", "--entry", "{claim}"], "no memory request {claim} in company (it is an entry)"),
    ("codex", ["retire", "{promotion}", "--reason", "r"], "no entry {promotion} in company (it is a promotion)"),
    ("codex", ["write", "--supersedes", "{promotion}", "new"], "no entry {promotion} in company (it is a promotion)"),
    ("codex", ["close", "{request}"], "no entry {request} in company (it is a memory request)"),
    ("maki", ["show", "{session}"], "no entry {session} in company (it is a session)"),
])
def test_an_id_of_another_kind_is_not_found_and_nothing_changes(
        world: World, policies: PolicySet, actor: str, args: list[str], expected: str) -> None:
    before = count_events(world.url)

    done = run(world, policies, actor, *(a.format(**world.__dict__) for a in args))

    assert done.exit_code == 1, done.output
    assert done.stderr.strip() == "error: " + expected.format(**world.__dict__)
    assert count_events(world.url) == before


def test_under_json_a_refusal_prints_its_code_message_and_rule_on_stdout(world: World, policies: PolicySet) -> None:
    done = run(world, policies, "gemini", "--json", "write", "--layer", "L2", "not mine to write")

    error = json.loads(done.stdout)["error"]
    assert done.exit_code == 3
    assert error == {"code": 3, "message": "refused: no rule permits write_l2 for gemini in company",
                     "rule": "no-rule-permits"}
    assert done.stderr.strip() == "error: " + error["message"]


def test_under_json_an_error_and_a_usage_error_are_json_too(world: World, policies: PolicySet) -> None:
    missing = run(world, policies, "maki", "--json", "show", "abcdef")
    usage = run(world, policies, "codex", "write", "--kind", "rumour", "x", "--json")

    assert json.loads(missing.stdout) == {"error": {"code": 1, "message": "no entry abcdef in company"}}
    assert json.loads(usage.stdout)["error"]["code"] == 2
    assert "'rumour' is not one of" in json.loads(usage.stdout)["error"]["message"]


@pytest.mark.parametrize(("arg", "problem"), [("caf\udce9", "is not valid UTF-8"),
                                              ("a\x00b", "contains a NUL character")])
def test_an_argument_that_cannot_be_text_is_one_usage_line(
        world: World, policies: PolicySet, arg: str, problem: str) -> None:
    before = count_events(world.url)

    done = run(world, policies, "codex", "write", arg)

    assert done.exit_code == 2
    assert done.stderr.strip() == f"usage error: argument 8 {problem}"
    assert count_events(world.url) == before


@pytest.mark.parametrize("command", [["write"], ["wrap-up"]])
def test_stdin_that_is_not_utf8_is_one_line(world: World, policies: PolicySet, command: list[str]) -> None:
    before = count_events(world.url)

    done = run(world, policies, "codex", *command, input=b"caf\xe9 au lait")

    assert done.exit_code == 1
    assert done.stderr.strip() == "error: stdin is not valid UTF-8 (byte 3)"
    assert count_events(world.url) == before


def test_a_nul_character_is_refused_alike_on_every_backend(
        world: World, policies: PolicySet, tmp_path: Path) -> None:
    payload = tmp_path / "entry.json"
    payload.write_text(json.dumps({"text": "half\u0000way", "kind": "claim"}))
    before = count_events(world.url)

    from_file = run(world, policies, "codex", "write", "--payload", str(payload))
    from_stdin = run(world, policies, "codex", "wrap-up", input="done\x00")
    as_a_tag = run(world, policies, "codex", "write", "x", "--topic", "a\x00b")

    assert from_file.stderr.strip() == "error: invalid text: contains a NUL character"
    assert from_stdin.stderr.strip() == "error: invalid text: contains a NUL character"
    assert as_a_tag.exit_code == 2  # argv: refused before the draft
    assert (from_file.exit_code, from_stdin.exit_code) == (1, 1)
    assert count_events(world.url) == before


def test_a_checkpoint_file_that_is_not_text_is_one_line(
        world: World, policies: PolicySet, tmp_path: Path) -> None:
    binary = tmp_path / "checkpoints.jsonl"
    binary.write_bytes(b"\x89PNG\r\n\x1a\n\xff\xfe")

    done = invoke(policies, ["--store", world.url, "audit", "verify", "--checkpoints", str(binary)])

    assert done.exit_code == 1
    assert done.stderr.strip() == f"error: {binary} is not a checkpoint file: not UTF-8 text (byte 0)"


@pytest.mark.parametrize(("store", "message"), [
    ("mysql://root@localhost/memhall", "unsupported store URL: use a SQLite path or postgresql+psycopg://"),
    ("sqlite://", "an in-memory store vanishes when the command ends: give a SQLite file path"),
    (":memory:", "an in-memory store vanishes when the command ends: give a SQLite file path"),
])
def test_a_store_that_cannot_be_used_is_named_and_not_created(
        policies: PolicySet, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, store: str, message: str) -> None:
    monkeypatch.chdir(tmp_path)

    done = invoke(policies, ["--store", store, "--as", "maki", "domain", "create", "company"])

    assert done.exit_code == 1
    assert done.stderr.strip() == f"error: {message}"
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("target", ["{folder}", "{folder}/no-such-folder/out.jsonl"])
def test_export_to_a_folder_or_into_a_missing_folder_is_a_usage_error_and_writes_nothing(
        world: World, policies: PolicySet, tmp_path: Path, target: str) -> None:
    folder = tmp_path / "exports"
    folder.mkdir()

    done = run(world, policies, "maki", "export", target.format(folder=folder))

    assert done.exit_code == 2, done.output
    assert len(done.stderr.strip().splitlines()) == 1
    assert list(folder.iterdir()) == []


def test_an_export_file_appears_whole_with_no_partial_file_left_beside_it(
        world: World, policies: PolicySet, tmp_path: Path) -> None:
    folder = tmp_path / "exports"
    folder.mkdir()

    done = run(world, policies, "maki", "export", str(folder / "out.jsonl"))

    assert done.exit_code == 0, done.output
    assert [p.name for p in folder.iterdir()] == ["out.jsonl"]
    lines = (folder / "out.jsonl").read_text().splitlines()
    assert lines and all(json.loads(line)["text"] for line in lines)


def test_a_file_the_command_cannot_create_is_one_line_naming_it_and_changes_nothing(
        world: World, policies: PolicySet, tmp_path: Path) -> None:
    (tmp_path / "a-file").write_text("not a folder")
    before = count_events(world.url)

    done = run(world, policies, "maki", "audit", "checkpoint", "--file", str(tmp_path / "a-file" / "checkpoints"))

    assert done.exit_code == 1, done.output
    assert "internal error" not in done.output
    assert "a-file" in done.stderr and len(done.stderr.strip().splitlines()) == 1
    assert count_events(world.url) == before
