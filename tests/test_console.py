"""`memhall` session starts without click: the same bytes and exit codes as the click CLI, or click answers."""

from __future__ import annotations

import contextlib
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from memhall.cli.context import App
from memhall.cli.main import cli
from memhall.domains.entry import draft
from memhall.governance import fast_handoff, sessions
from memhall.governance.hall import Hall
from memhall.governance.recompute import verify_read_models
from tests.processes import run_memhall

ROOT = Path(__file__).resolve().parents[1]
#: what a session start must not import: about half a second of start-up between them (orjson
#: brings dataclasses and inspect, ~20 ms; `projection.codec` writes its bytes without it)
HEAVY = ("click", "pydantic", "sqlalchemy", "eventsourcing", "cedarpy", "orjson", "dataclasses")


@pytest.fixture
def store_url(tmp_path: Path) -> str:
    """Session starts are served without click on SQLite stores only (PostgreSQL goes to click,
    whose main path the CLI and hook stories cover on both backends)."""
    return f"sqlite:///{tmp_path / 'memhall.db'}"


@pytest.fixture
def served(hall: Hall, tmp_path: Path) -> Path:
    """A hall whose handoff and hook answers are cached, as after a first start; a folder to run in."""
    hall.write("codex", "company", draft(text="billing: v2 live, café ✓", kind="state", layer="L2",
                                         tags={"topics": ["billing"]}))
    hall.write("gemini", "company", draft(text="billing: \x1b[31mv3\x1b[0m next", kind="state",
                                          tags={"topics": ["billing"]}))
    sessions.wrap_up(hall, "codex", "company", "day one done", opens=["send reminders"])
    for actor in ("codex", "claude", "gemini"):
        fast_handoff.remember_allowed(hall, actor, "company", None, (fast_handoff.HANDOFF, fast_handoff.READ),
                                      marks=(fast_handoff.AGENT,))
    work = tmp_path / "work"
    work.mkdir()
    return work


def env(store: str, **extra: str) -> dict[str, str]:
    return {"PYTHONPATH": str(ROOT), "PATH": "", "MEMHALL_STORE": store, **extra}


def console(args: list[str], cwd: Path, environment: dict[str, str], stdin: str | None = None,
            ) -> subprocess.CompletedProcess[str]:
    """`python -m memhall ARGS` as a process (the console's dispatch)."""
    return run_memhall(args, cwd=cwd, env=environment, input=stdin)


def with_click(args: list[str], cwd: Path, environment: dict[str, str], stdin: str | None = None,
               ) -> tuple[int, str, str]:
    """The click CLI itself, in-process."""
    with contextlib.chdir(cwd):
        done = CliRunner().invoke(cli, args, obj=App(), env=environment, input=stdin, catch_exceptions=False)
    return done.exit_code, done.stdout, done.stderr


def steady(text: str) -> str:
    """Output without the moment it was made."""
    return re.sub(r'as_of(": |=\\?")"?\d{4}-[0-9T:.\-]+Z', "as_of=TIME", text)


@pytest.mark.parametrize("args", [
    ["--as", "codex", "--domain", "company", "handoff"],
    ["--as=codex", "--domain=company", "handoff", "--json"],
    ["--json", "--as", "codex", "--domain", "company", "handoff", "--limit", "1"],
    ["--as", "codex", "--domain", "company", "handoff", "--limit=2", "--no-session"],
])
def test_a_handoff_prints_what_the_click_cli_prints(served: Path, store_url: str, args: list[str]) -> None:
    environment = env(store_url)
    console(["--as", "codex", "--domain", "company", "handoff"], served, environment)  # the session to continue

    done = console(args, served, environment)
    code, out, err = with_click(args, served, environment)

    assert (done.returncode, steady(done.stdout), done.stderr) == (code, steady(out), err)
    assert done.returncode == 0 and "company" in done.stdout
    if args[-1] == "handoff":
        assert "billing: v3 next" in done.stdout and "café ✓" in done.stdout  # on a pipe: no colour codes


def test_a_handoff_takes_its_principal_and_domain_from_the_environment_and_the_project(
        served: Path, store_url: str) -> None:
    (served / ".memhall").mkdir()
    (served / ".memhall" / "config.toml").write_text('domain = "company"\n')
    environment = env(store_url, MEMHALL_AGENT="codex")
    console(["handoff"], served, environment)  # the session to continue

    done = console(["handoff", "--json"], served, environment)
    code, out, err = with_click(["handoff", "--json"], served, environment)

    assert (done.returncode, steady(done.stdout), done.stderr) == (code, steady(out), err) == (0, steady(out), "")
    assert json.loads(done.stdout)["domain"] == "company"


@pytest.mark.parametrize("args", [
    ["--as", "codex", "--domain", "company", "handoff", "--limit", "0"],
    ["--as", "codex", "--domain", "company", "handoff", "--limit", "ten"],
    ["--as", "codex", "--domain", "company", "handoff", "--bogus"],
    ["--as", "codex", "--domain", "company", "handoff", "now"],
    ["--as", "codex", "--domain", "company", "handoff", "--json=yes"],
    ["--domain", "company", "--as"],
])
def test_bad_usage_goes_to_click_and_ends_with_its_usage_error(served: Path, store_url: str,
                                                               args: list[str]) -> None:
    done = console(args, served, env(store_url))
    code, out, err = with_click(args, served, env(store_url))

    assert (done.returncode, done.stdout, done.stderr) == (code, out, err)
    assert done.returncode == 2


def test_a_handoff_the_fast_path_declines_is_answered_by_click_which_caches_the_answer(
        served: Path, store_url: str) -> None:
    cache = fast_handoff.cache_file(Path(store_url.removeprefix("sqlite:///")))
    cache.unlink()
    args = ["--as", "codex", "--domain", "company", "handoff"]

    done = console(args, served, env(store_url))

    assert done.returncode == 0 and "billing: v3 next" in done.stdout
    assert "codex:handoff:company" in cache.read_text()


def hook_input(session: str) -> str:
    return json.dumps({"session_id": session, "hook_event_name": "SessionStart", "source": "startup"})


@pytest.mark.parametrize("agent", ["claude", "codex", "gemini"])
def test_a_hook_session_start_prints_what_the_click_hook_prints(served: Path, store_url: str, agent: str) -> None:
    args = ["--domain", "company", "hook", "session-start", "--agent", agent]
    environment = env(store_url)
    console(args, served, environment, hook_input("one"))  # opens the agent session's memhall session

    done = console(args, served, environment, hook_input("one"))
    code, out, err = with_click(args, served, environment, hook_input("one"))

    assert (done.returncode, steady(done.stdout), done.stderr) == (code, steady(out), err) == (0, steady(out), "")
    assert json.loads(done.stdout)["hookSpecificOutput"]["hookEventName"] == "SessionStart"


def test_a_hook_the_fast_path_declines_reads_the_same_input_on_the_main_path(served: Path, store_url: str) -> None:
    fast_handoff.cache_file(Path(store_url.removeprefix("sqlite:///"))).unlink()
    args = ["--as", "gemini", "--domain", "company", "hook", "--agent", "gemini", "session-start"]

    done = console(args, served, env(store_url), hook_input("declined"))

    assert (done.returncode, done.stderr) == (0, "")
    assert "billing: v2 live" in json.loads(done.stdout)["hookSpecificOutput"]["additionalContext"]


@pytest.mark.parametrize("args", [
    ["--domain", "company", "hook", "session-start", "--agent", "nobody"],
    ["--domain", "company", "hook", "session-start", "--agent", "claude", "--verbose-ish"],
    ["hook", "session-start", "--agent", "claude"],
])
def test_a_hook_click_must_judge_still_exits_0_with_one_line(served: Path, store_url: str, args: list[str]) -> None:
    done = console(args, served, env(store_url), hook_input("odd"))
    code, out, err = with_click(args, served, env(store_url), hook_input("odd"))

    assert (done.returncode, done.stdout, done.stderr) == (code, out, err)
    assert done.returncode == 0 and done.stdout == "" and done.stderr.count("\n") == 1


SCRIPT = """
import json, sys
from memhall.console import served
code = served(sys.argv[1:])
print(json.dumps([code, sorted(m for m in {heavy!r} if m in sys.modules)]), file=sys.stderr)
"""


@pytest.mark.parametrize("args", [
    ["--as", "codex", "--domain", "company", "handoff"],
    ["--as=codex", "--domain=company", "handoff", "--json"],
    ["--json", "--as", "codex", "--domain", "company", "handoff", "--limit", "1"],
    ["--as", "codex", "--domain", "company", "handoff", "--limit=2", "--no-session"],
    ["--domain", "company", "hook", "session-start", "--agent", "claude"],
    ["--as", "codex", "hook", "--agent=codex", "--domain", "company", "session-start"],
])
def test_a_session_start_served_without_click_imports_none_of_the_heavy_libraries(
        hall: Hall, served: Path, store_url: str, args: list[str]) -> None:
    done = subprocess.run([sys.executable, "-c", SCRIPT.format(heavy=HEAVY), *args], cwd=served,
                          env=env(store_url), input=hook_input("lean"), capture_output=True, text=True,
                          timeout=120)

    code, heavy = json.loads(done.stderr.splitlines()[-1])
    assert (code, heavy) == (0, [])
    assert done.stdout.startswith(("# Handoff: company", '{\n  "domain": "company"', '{"hookSpecificOutput"'))
    assert all(r.ok for r in verify_read_models(hall.streams, ["company"]))  # its event, as the main path reads it
    verified = CliRunner().invoke(cli, ["--store", store_url, "--as", "maki", "audit", "verify"], obj=App())
    assert verified.exit_code == 0, verified.output
