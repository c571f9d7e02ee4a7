"""What the server tells a client about its tools: names, honest annotations, schemas."""

from __future__ import annotations

import pytest
from mcp.types import Tool

from tests.agents.conftest import Connect

pytestmark = pytest.mark.anyio

TOOLS = {"get_handoff", "wrap_up", "write_memory", "recall", "search_history", "show_memory",
         "request_memory", "list_pending", "list_promotions", "remind", "record_dissent", "why"}


async def listed(connect: Connect) -> dict[str, Tool]:
    async with connect("codex") as client:
        return {t.name: t for t in (await client.list_tools()).tools}


async def test_the_server_offers_the_hall_s_operations_and_no_ratify(connect: Connect) -> None:
    tools = await listed(connect)

    assert set(tools) == TOOLS


async def test_only_the_tools_that_record_nothing_are_read_only(connect: Connect) -> None:
    tools = await listed(connect)

    reads = {n for n, t in tools.items() if t.annotations and t.annotations.read_only_hint}
    assert reads == {"search_history", "show_memory", "list_pending", "list_promotions", "why"}


async def test_a_tool_that_records_once_is_idempotent_and_one_that_records_each_call_is_not(
        connect: Connect) -> None:
    tools = await listed(connect)

    idempotent = {n for n, t in tools.items()
                  if t.annotations and not t.annotations.read_only_hint and t.annotations.idempotent_hint}
    assert idempotent == {"get_handoff", "wrap_up", "write_memory"}


async def test_no_tool_erases_anything_or_reaches_outside_the_hall(connect: Connect) -> None:
    tools = await listed(connect)

    assert all(t.annotations and t.annotations.destructive_hint is False for t in tools.values())
    assert all(t.annotations and t.annotations.open_world_hint is False for t in tools.values())


async def test_inputs_are_typed_and_every_output_is_structured(connect: Connect) -> None:
    tools = await listed(connect)

    write = tools["write_memory"].input_schema
    assert write["required"] == ["text"]
    assert write["properties"]["layer"]["enum"] == ["L1", "L2"]
    assert tools["show_memory"].input_schema["properties"]["entry_id"]["format"] == "uuid"
    dissent = tools["record_dissent"].input_schema["$defs"]["Stance"]
    assert dissent["enum"] == ["agree", "disagree", "abstain"]
    assert all(t.output_schema and t.output_schema["type"] == "object" for t in tools.values())
    recalled = tools["recall"].output_schema or {}
    assert "layer" in recalled["$defs"]["RecalledItem"]["required"]
