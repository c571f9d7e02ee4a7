"""Generated command lines across every command: never an internal error, never
an exit code outside 0-4, and a command that fails appends no event unless it
was refused (a refusal is recorded, and is the only thing that may be)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from uuid import uuid4

import click
import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from memhall.cli.context import App, IdText
from memhall.cli.main import cli
from memhall.policies.engine import PolicySet
from tests.cli.world import World, build_world, event_marks, invoke, topics_since

#: a fixed scenario on a scratch store of its own (tests/cli/test_tour_and_init.py)
SKIPPED = {"tour"}
JUNK = ["", " ", "0", "-1", "9223372036854775808", "1e9", "nan", "inf", "-inf", "\udcff\udcfe", "a\x00b",
        "zzzzzz", "../..", "L9", "--", "-", "%s", "' OR 1=1 --", "ａｂｃ", "x" * 300]
REFUSAL = "memhall.Refusal.Recorded"


def commands() -> list[tuple[list[str], click.Command]]:
    """Every command under the root group, with the words that reach it."""
    found: list[tuple[list[str], click.Command]] = []

    def walk(group: click.Group, path: list[str]) -> None:
        ctx = click.Context(group, obj=App())
        for name in group.list_commands(ctx):
            command = group.get_command(ctx, name)
            if command is None or name in SKIPPED:
                continue
            if isinstance(command, click.Group):
                walk(command, [*path, name])
            else:
                found.append(([*path, name], command))

    walk(cli, [])
    return found


COMMANDS = commands()


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory, policies: PolicySet) -> World:
    folder = tmp_path_factory.mktemp("fuzz")
    made = build_world(f"sqlite:///{folder / 'memhall.db'}", policies)
    (folder / "binary").write_bytes(bytes(range(256)) * 4)
    (folder / "payload.json").write_text('{"text": "from a payload\\u0000", "kind": "claim"}')
    return made


def values(param: click.Parameter, world: World) -> st.SearchStrategy[str]:
    ids = world.ids()
    known = ids + [i[:6] for i in ids] + [i[:13] for i in ids] + [str(uuid4()), "abcdef", "0123456"]
    junk = st.sampled_from(JUNK)
    kind = param.type
    if isinstance(kind, click.Choice):
        return st.one_of(st.sampled_from([str(c) for c in kind.choices]), junk)
    if isinstance(kind, (click.types.IntParamType, click.types.FloatParamType)):
        return st.one_of(st.integers(-2**70, 2**70).map(str), st.sampled_from(["1", "3", "10", "72"]), junk)
    if isinstance(kind, IdText):
        return st.one_of(st.sampled_from(known), junk)
    if isinstance(kind, (click.Path, click.File)):
        folder = world.path.parent
        return st.sampled_from([str(folder / "binary"), str(folder / "payload.json"), str(folder / "nowhere"),
                                str(folder)])
    words = ["company", "family", "codex", "gemini", "claude", "maki", "billing", "invoices", "HEAD"]
    return st.one_of(st.sampled_from(words + known), st.text(max_size=12), junk)


@st.composite
def command_lines(draw: st.DrawFn, world: World) -> list[str]:
    path, command = draw(st.sampled_from(COMMANDS))
    args: list[str] = ["--store", world.url]
    actor = draw(st.sampled_from(["maki", "codex", "claude", "gemini", None, "\udcff", "no body"]))
    if actor is not None:
        args += ["--as", actor]
    domain = draw(st.sampled_from(["company", "family", "nowhere", None, "Bad Name"]))
    if domain is not None:
        args += ["--domain", domain]
    if draw(st.booleans()):
        args.append("--json")
    args += path
    for param in command.params:
        if isinstance(param, click.Argument):
            if param.required or draw(st.booleans()):
                args.append(draw(values(param, world)))
            continue
        if not isinstance(param, click.Option) or param.hidden or not draw(st.booleans()):
            continue
        name = max(param.opts, key=len)
        if param.is_flag:
            args.append(name)
        else:
            for _ in range(draw(st.integers(1, 2)) if param.multiple else 1):
                args += [name, draw(values(param, world))]
    return args


@pytest.fixture
def scratch(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    monkeypatch.chdir(tmp_path)  # init and checkpoints write into the working directory
    yield tmp_path


@settings(max_examples=80, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(data=st.data())
def test_no_command_line_ends_in_an_internal_error_or_an_unrecorded_write(
        data: st.DataObject, world: World, policies: PolicySet, scratch: Path) -> None:
    args = data.draw(command_lines(world), label="argv")
    stdin = data.draw(st.sampled_from([None, b"", b"a summary", b"\xff\xfe not utf-8", b"a\x00b"]), label="stdin")
    before = event_marks(world.path)

    done = invoke(policies, args, input=stdin, env={"HOME": str(scratch)})  # `keys init` writes to ~/.ssh
    event(f"exit {done.exit_code}")

    assert "internal error" not in done.output, done.output
    assert "Traceback" not in done.output
    assert isinstance(done.exception, (SystemExit, type(None))), repr(done.exception)
    assert 0 <= done.exit_code <= 4, done.output
    appended = topics_since(world.path, before)
    if done.exit_code != 0 and appended:
        assert REFUSAL in appended, (done.output, appended)
