"""`memhall mcp` as an agent runs it: a real subprocess on a real store, spoken
to over stdio by the SDK's own client. (Each test starts a process, which
costs seconds: the annotations and schemas are checked in-process.)"""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from uuid import UUID

import pytest
from mcp import Client, StdioServerParameters

from memhall.governance import history
from memhall.governance.hall import Hall
from tests.agents.conftest import error_text, structured
from tests.agents.test_schemas import TOOLS

pytestmark = pytest.mark.anyio

ROOT = Path(__file__).resolve().parents[2]


@asynccontextmanager
async def memhall_mcp(store_url: str, actor: str, cwd: Path) -> AsyncIterator[Client]:
    server = StdioServerParameters(
        command=sys.executable,
        args=["-m", "memhall", "mcp", "--as", actor, "--domain", "company", "--store", store_url],
        cwd=cwd,  # no ./memhall-policy/ there: the shipped default policy
        env={"PYTHONPATH": str(ROOT)},  # the code under test, whatever the venv points at
    )
    async with Client(server, read_timeout_seconds=60) as client:
        yield client


async def test_an_agent_lists_the_tools_gets_its_handoff_writes_and_recalls_over_stdio(
        hall: Hall, store_url: str, tmp_path: Path) -> None:
    async with memhall_mcp(store_url, "codex", tmp_path) as client:
        tools = {t.name for t in (await client.list_tools()).tools}
        handoff = structured(await client.call_tool("get_handoff", {}))
        written = structured(await client.call_tool("write_memory", {
            "text": "the release train leaves on thursdays", "layer": "L2", "kind": "claim"}))
        recalled = structured(await client.call_tool("recall", {"query": "release train"}))

    assert tools == TOOLS
    assert handoff["domain"] == "company" and handoff["session_id"]
    assert written["layer"] == "L2" and written["rule"] == "session-chair-writes-l2"
    assert [(i["id"], i["layer"]) for i in recalled["items"]] == [(written["entry_id"], "L2")]
    entry = history.show(hall, "maki", "company", UUID(written["entry_id"])).entry
    assert (entry.author, entry.session_id) == ("codex", handoff["session_id"])


async def test_a_seat_writing_l2_gets_a_tool_error_naming_the_rule_and_the_refusal_is_recorded(
        hall: Hall, store_url: str, tmp_path: Path) -> None:
    async with memhall_mcp(store_url, "gemini", tmp_path) as client:
        result = await client.call_tool("write_memory", {"text": "we decided to ship", "layer": "L2"})

    assert result.is_error
    assert "refused: no rule permits write_l2 for gemini in company" in error_text(result)
    refusal = history.log(hall, "maki", "company", limit=1)[0]
    assert (refusal.topic, refusal.actor, refusal.rule) == ("memhall.Refusal.Recorded", "gemini", "no-rule-permits")
    assert refusal.data["action"] == "write_l2" and refusal.data["layer"] == "L2"
