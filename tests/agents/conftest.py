"""Agent fixtures: the MCP server with the SDK's own in-process client, and a scratch
project with a store, a policy and the agents' real hook JSON for the hooks."""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner, Result
from mcp import Client
from mcp.types import CallToolResult, TextContent
from sqlalchemy import select

from memhall.agents.agent import Agent
from memhall.agents.mcp_server import build_server
from memhall.cli.context import App
from memhall.cli.main import cli
from memhall.governance.hall import Hall
from memhall.governance.store import Store
from memhall.governance.views import EntryView
from memhall.policies.engine import PolicySet, init_policy_dir
from tests.processes import run_memhall

Connect = Callable[..., AbstractAsyncContextManager[Client]]


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def connect(hall: Hall) -> Connect:
    """`async with connect("codex") as client:` a client of codex's server in company."""

    @asynccontextmanager
    async def connected(actor: str, domain: str = "company") -> AsyncIterator[Client]:
        async with Client(build_server(Agent(hall, actor, domain))) as client:
            yield client

    return connected


def structured(result: CallToolResult) -> dict[str, Any]:
    """The tool's structured result; a tool error fails the test with its text."""
    assert not result.is_error, error_text(result)
    assert result.structured_content is not None
    return result.structured_content


def error_text(result: CallToolResult) -> str:
    return " ".join(c.text for c in result.content if isinstance(c, TextContent))


ROOT = Path(__file__).resolve().parents[2]
FIXTURES = Path(__file__).parent / "fixtures"
#: memhall's hook command -> the fixture file of each agent's own event
FIXTURE_EVENTS = {
    "claude": {"session-start": "SessionStart", "stop": "Stop", "pre-compact": "PreCompact",
               "session-end": "SessionEnd"},
    "codex": {"session-start": "SessionStart", "stop": "Stop", "pre-compact": "PreCompact"},
    "gemini": {"session-start": "SessionStart", "stop": "AfterAgent", "pre-compact": "PreCompress",
               "session-end": "SessionEnd"},
}


@dataclass
class Project:
    """A project an agent works in: its folder, the hall's store and policy."""

    root: Path
    store_url: str
    policy: Path
    hall: Hall

    def payload(self, agent: str, event: str, **fields: Any) -> dict[str, Any]:
        """The agent's real hook JSON for EVENT, pointed at this project."""
        text = (FIXTURES / agent / f"{FIXTURE_EVENTS[agent][event]}.json").read_text()
        data: dict[str, Any] = json.loads(text)
        data["cwd"] = str(self.root)
        data["transcript_path"] = str(self.transcript(agent))
        data.update(fields)
        return data

    def transcript(self, agent: str) -> Path:
        target = self.root / f"{agent}-transcript.jsonl"
        if not target.exists():
            target.write_text((FIXTURES / agent / "transcript.jsonl").read_text())
        return target

    def args(self, agent: str, event: str, *extra: str) -> list[str]:
        return ["--store", self.store_url, "--policy", str(self.policy), "--domain", "company",
                "hook", event, "--agent", agent, *extra]

    def run(self, agent: str, event: str, payload: dict[str, Any] | str, *extra: str) -> subprocess.CompletedProcess[str]:
        """The hook as the agent runs it: a process, JSON on stdin, in the project."""
        stdin = payload if isinstance(payload, str) else json.dumps(payload)
        env = {k: v for k, v in os.environ.items() if not k.startswith("MEMHALL_")}
        env["PYTHONPATH"] = str(ROOT)
        return run_memhall(self.args(agent, event, *extra), cwd=self.root, env=env, input=stdin)

    def invoke(self, agent: str, event: str, payload: dict[str, Any] | str, *extra: str) -> Result:
        """The same hook in-process, for the cheaper checks."""
        stdin = payload if isinstance(payload, str) else json.dumps(payload)
        return CliRunner().invoke(cli, self.args(agent, event, *extra), obj=App(), input=stdin,
                                  catch_exceptions=False)

    def entries(self, **where: str) -> list[EntryView]:
        stream = self.hall.streams.stream("company")
        t = stream.tables.entries
        query = select(t).order_by(t.c.created_position)
        for column, value in where.items():
            query = query.where(t.c[column] == value)
        with self.hall.store.read() as conn:
            return [EntryView.from_row("company", r) for r in conn.execute(query)]

    def session(self, session_id: str) -> Any:
        t = self.hall.streams.stream("company").tables.sessions
        with self.hall.store.read() as conn:
            return conn.execute(select(t).where(t.c.id == session_id)).first()

    def event_count(self) -> int:
        return self.hall.streams.event_count("company")


def session_chairs_everywhere(policy: Path) -> None:
    """All three agents chair sessions in company (the defaults give it to codex only)."""
    roles_file = policy / "roles.yaml"
    roles = yaml.safe_load(roles_file.read_text())
    roles["roles"]["company"]["session_chair"] = ["claude", "codex", "gemini"]
    roles["roles"]["company"]["seat"] = []
    roles_file.write_text(yaml.safe_dump(roles))


@pytest.fixture
def project(tmp_path: Path, store_url: str) -> Iterator[Project]:
    root = tmp_path / "project"
    root.mkdir()
    policy = root / "memhall-policy"
    init_policy_dir(policy)
    session_chairs_everywhere(policy)
    store = Store(store_url)
    hall = Hall(store, PolicySet.load(policy))
    hall.create_domain("maki", "company")
    yield Project(root, store_url, policy, hall)
    store.dispose()


def hook_output(stdout: str) -> dict[str, Any]:
    """The one JSON object a session-start printed (fails on anything else)."""
    assert stdout.endswith("\n") and stdout.count("\n") == 1, stdout
    data: dict[str, Any] = json.loads(stdout)
    return data


def context_of(stdout: str) -> str:
    output = hook_output(stdout)["hookSpecificOutput"]
    assert output["hookEventName"] == "SessionStart"
    text: str = output["additionalContext"]
    return text
